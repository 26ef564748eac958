export { smoke, SMOKE_CORPUS, type SmokeReport, type SmokeQueryReport, type ZerdaModule } from './smoke.js';
export { buildBrowserBundle, type BrowserBundle, type BundleFile, type BundleSizes } from './bundle.js';
export {
  CHROMIUM_FLAGS,
  CHROMIUM_PATH,
  RUNTIMES,
  locateRuntime,
  runSmokeChromium,
  runSmokeCli,
  runSmokeWorkerd,
  runtimeVersion,
  type BrowserRun,
  type RuntimeLocation,
  type RuntimeName,
} from './runtimes.js';

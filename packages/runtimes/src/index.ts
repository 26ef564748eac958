export { smoke, SMOKE_CORPUS, type SmokeReport, type SmokeQueryReport, type ZerdaModule } from './smoke.js';
export { buildBrowserBundle, type BrowserBundle, type BundleFile, type BundleSizes } from './bundle.js';
export {
  CHROMIUM_FLAGS,
  CHROMIUM_PATH,
  RUNTIMES,
  locateRuntime,
  openStaticSite,
  runSmokeChromium,
  runSmokeCli,
  runSmokeWorkerd,
  runtimeVersion,
  SITE_ORIGIN,
  type BrowserRun,
  type StaticSite,
  type RuntimeLocation,
  type RuntimeName,
} from './runtimes.js';

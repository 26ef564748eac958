import { cpus, loadavg, release, totalmem } from 'node:os';

/** The machine a run measured on. */
export interface MachineInfo {
  cores: number;
  cpuModel: string;
  memoryBytes: number;
  node: string;
  os: string;
  /** 1-minute load average at the start: other work on a shared machine shows here. */
  loadAverageAtStart: number;
}

export function machineInfo(): MachineInfo {
  const processors = cpus();
  return {
    cores: processors.length,
    cpuModel: processors[0]?.model.trim() ?? 'unknown',
    memoryBytes: totalmem(),
    node: process.version,
    os: `${process.platform} ${release()}`,
    loadAverageAtStart: loadavg()[0] ?? 0,
  };
}

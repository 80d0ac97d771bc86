/** How much the bench measures: `full` for `pnpm bench`, `tiny` for its test (seconds, not minutes). */
export interface BenchProfile {
  name: 'full' | 'tiny';
  serverHop: {
    /** Virtual clients, each with one hop in flight. */
    concurrency: number[];
    warmupMs: number;
    windowMs: number;
    repetitions: number;
  };
  layoutScaling: {
    sizes: number[];
    repetitions: number;
    /** Each repetition runs whole turns until at least this much server time was measured. */
    minRepetitionMs: number;
  };
  stateGrowth: { sizes: number[] };
  changeDetection: {
    sizes: number[];
    /** Whole turns per size and case, after one to warm up. */
    repetitions: number;
  };
  attackStall: {
    /** The bodies' size as a share of the limits (1: as large as the limits allow). */
    scale: number;
    /** Single sends of each body; the stall reported is the longest. */
    repetitions: number;
    /** Copies of each body in flight at once while /healthz is asked. */
    concurrent: number;
    /** The pause between two /healthz requests. */
    probeEveryMs: number;
    /** Whether another process keeps one core busy meanwhile. */
    busyCore: boolean;
  };
  costGrowth: {
    /** The shapes' base size as a share of the full run's (cost-shapes.ts). */
    scale: number;
    /** Turns per shape and size; the figure is their median. */
    repetitions: number;
  };
  liveModel: {
    /** L: how long each model decision takes. */
    latencyMs: number;
    /** When a decision's first word comes (the others spread until L). */
    firstTokenMs: number;
    /** Turns per mode, after one pair to warm up. */
    repetitions: number;
  };
  widget: {
    clientSizes: number[];
    repetitions: number;
    /** Each repetition runs iterations until at least this much client time was measured. */
    minRepetitionMs: number;
  };
}

/** The profiles by name. */
export const PROFILES: Record<BenchProfile['name'], BenchProfile> = {
  full: {
    name: 'full',
    serverHop: { concurrency: [1, 32], warmupMs: 1_500, windowMs: 2_500, repetitions: 5 },
    layoutScaling: { sizes: [10, 100, 1_000, 10_000], repetitions: 5, minRepetitionMs: 400 },
    stateGrowth: { sizes: [10, 10_000] },
    changeDetection: { sizes: [10, 10_000], repetitions: 5 },
    attackStall: { scale: 1, repetitions: 3, concurrent: 8, probeEveryMs: 5, busyCore: true },
    costGrowth: { scale: 1, repetitions: 3 },
    liveModel: { latencyMs: 400, firstTokenMs: 100, repetitions: 3 },
    widget: { clientSizes: [1_000, 10_000], repetitions: 5, minRepetitionMs: 400 },
  },
  tiny: {
    name: 'tiny',
    serverHop: { concurrency: [1, 4], warmupMs: 200, windowMs: 300, repetitions: 2 },
    layoutScaling: { sizes: [10, 100], repetitions: 2, minRepetitionMs: 20 },
    stateGrowth: { sizes: [10] },
    changeDetection: { sizes: [10, 100], repetitions: 2 },
    attackStall: { scale: 1 / 64, repetitions: 1, concurrent: 2, probeEveryMs: 5, busyCore: true },
    costGrowth: { scale: 1 / 16, repetitions: 1 },
    liveModel: { latencyMs: 60, firstTokenMs: 15, repetitions: 1 },
    widget: { clientSizes: [100], repetitions: 2, minRepetitionMs: 20 },
  },
};

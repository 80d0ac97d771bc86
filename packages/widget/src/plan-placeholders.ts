/**
 * The planned rows a host draws on its canvas while an agent proposes and builds a plan (spec §20.4): which rows are
 * still placeholders. Rows are matched to what is built by order, as the spec says: once the plan is approved, each
 * component a `place_components` output puts at the top level of a region, applied by the host, builds the next row.
 */
import type { ApplyResult, PlanRow, WaitingOf, ToolOutput } from '@canvas-ai/protocol';

/** A plan as the host's {@link ShowPlanHook} gets it. */
export interface ShownPlan {
  /** The call that proposed it (a revised plan comes with a new one). */
  callId: string;
  /** Every planned row, in order. */
  rows: readonly PlanRow[];
  /** Whether the person approved it: the rows are being built. */
  approved: boolean;
  /** How many rows, from the first, are built: the host draws placeholders for `rows.slice(built)`. */
  built: number;
}

/**
 * Draws the planned rows that are not built yet as placeholders on the host's canvas, replacing what it drew before.
 * Called when a plan is shown, when it is approved, and after each hop whose outputs built rows. Placeholders are
 * not part of the document: `getLayout` must leave them out (spec §20.4).
 */
export type ShowPlanHook = (plan: ShownPlan) => void;

/** Takes every placeholder away: the person asked for another plan, or the turn ended or was stopped. */
export type ClearPlanHook = () => void;

/** The top-level components of a region that `outputs` placed, the rejected outputs left out. */
export function rowsBuiltBy(outputs: readonly ToolOutput[], results: readonly ApplyResult[] | undefined): number {
  const rejected = new Set(
    (results ?? []).filter((result) => result.status === 'rejected').map((result) => result.call_id),
  );
  let rows = 0;
  for (const output of outputs) {
    if (output.type !== 'place_components' || rejected.has(output.call_id)) continue;
    for (const operation of output.operations) if (!operation.target.includes('/')) rows += operation.components.length;
  }
  return rows;
}

/** One turn's plan on the host's canvas, through its optional hooks. */
export class PlanPlaceholders {
  private plan: ShownPlan | undefined;

  constructor(private readonly hooks: { showPlan?: ShowPlanHook | undefined; clearPlan?: ClearPlanHook | undefined }) {}

  /** A plan waits for the person's decision. */
  shown(waiting: WaitingOf<'plan'>): void {
    this.draw({ callId: waiting.call_id, rows: waiting.plan.rows, approved: false, built: 0 });
  }

  /** The person decided: an approved plan stays and is built; a revised one goes (the next plan brings its own). */
  decided(decision: 'approve' | 'revise'): void {
    if (!this.plan) return;
    if (decision === 'approve') this.draw({ ...this.plan, approved: true });
    else this.clear();
  }

  /** A hop's outputs were applied: the rows they built replace their placeholders, first to last. */
  applied(outputs: readonly ToolOutput[], results: readonly ApplyResult[] | undefined): void {
    const plan = this.plan;
    if (!plan?.approved) return;
    const built = Math.min(plan.rows.length, plan.built + rowsBuiltBy(outputs, results));
    if (built !== plan.built) this.draw({ ...plan, built });
  }

  /** The turn ended, however it ended. */
  clear(): void {
    if (!this.plan) return;
    this.plan = undefined;
    this.hooks.clearPlan?.();
  }

  private draw(plan: ShownPlan): void {
    this.plan = plan;
    this.hooks.showPlan?.(plan);
  }
}

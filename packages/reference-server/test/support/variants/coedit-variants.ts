// Planted bugs of the parked-call guard (spec §16.1): a call the model decided runs one hop later, and it must not
// overwrite what the person changed in between. Each bug leaves the guard out for one kind of call.
import type { Fixtures } from '@canvas-ai/protocol/scenario';
import type { CanvasAiApp } from '../../../src/app.js';
import { MemoryTurnStore } from '../../../src/store/memory.js';
import type { TurnLock, TurnStore } from '../../../src/store/turn-store.js';
import { realApp } from './seams.js';
import { type BrokenVariant, must } from './variant.js';

/**
 * A turn store that saves a turn without its fingerprint of the expected page (spec §16.1) whenever a call of `tool`
 * is parked in it: the next hop finds no person's changes to guard against, so that parked call overwrites them.
 * Turns parking other calls keep their fingerprint, so only the guard of `tool` is lost.
 */
class UnguardedStore implements TurnStore {
  constructor(
    private readonly inner: TurnStore,
    private readonly tool: string,
  ) {}
  get(key: string): Promise<unknown> {
    return this.inner.get(key);
  }
  set(key: string, value: unknown, ttlMs: number): Promise<void> {
    const turn = value as { kind?: string; parked?: { name: string }[]; expected?: unknown };
    if (turn.kind !== 'active' || !turn.parked?.some((call) => call.name === this.tool))
      return this.inner.set(key, value, ttlMs);
    const { expected: _dropped, ...unguarded } = turn;
    return this.inner.set(key, unguarded, ttlMs);
  }
  delete(key: string): Promise<void> {
    return this.inner.delete(key);
  }
  lock(key: string, ttlMs: number): Promise<TurnLock | undefined> {
    return this.inner.lock(key, ttlMs);
  }
}

const unguarded =
  (tool: string) =>
  (fixtures: Fixtures): CanvasAiApp =>
    realApp(fixtures, { store: new UnguardedStore(new MemoryTurnStore(), tool) });

export const COEDIT_VARIANTS = {
  'parked-edit-overwrites-person': {
    bug: 'a parked edit_components runs without looking for what the person changed, and overwrites a prop they retyped',
    breaks: [
      must('spec §16.1', 'a parked call MUST NOT undo it'),
      must('spec §16.1', 'A server MUST refuse a parked call, as a whole'),
    ],
    caughtBy: 'scenario.coedit-edit-after-person',
    alsoFailing: ['hop-rules.validation-error-recovery'],
    build: unguarded('edit_components'),
  },
  'parked-page-value-overwrites-person': {
    bug: 'a parked set_page_value runs without looking for what the person changed, and overwrites a title they retyped',
    breaks: [
      must('spec §16.1', 'a parked call MUST NOT undo it'),
      must('spec §16.1', 'A server MUST refuse a parked call, as a whole'),
    ],
    caughtBy: 'scenario.coedit-title-after-person',
    alsoFailing: ['hop-rules.validation-error-recovery'],
    build: unguarded('set_page_value'),
  },
  'parked-remove-loses-person-edit': {
    bug: 'a parked remove_components runs without looking for what the person changed, and removes a card they edited',
    breaks: [
      must('spec §16.1', 'a parked call MUST NOT undo it'),
      must('spec §16.1', 'A server MUST refuse a parked call, as a whole'),
    ],
    caughtBy: 'scenario.coedit-remove-after-person',
    alsoFailing: ['hop-rules.validation-error-recovery'],
    build: unguarded('remove_components'),
  },
  'parked-move-undoes-person-move': {
    bug: 'a parked move_components runs without looking for what the person changed, and undoes a row they moved',
    breaks: [
      must('spec §16.1', 'a parked call MUST NOT undo it'),
      must('spec §16.1', 'A server MUST refuse a parked call, as a whole'),
    ],
    caughtBy: 'scenario.coedit-move-after-person',
    alsoFailing: ['hop-rules.validation-error-recovery'],
    build: unguarded('move_components'),
  },
} satisfies Record<string, BrokenVariant>;

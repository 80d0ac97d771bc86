// Planted bugs of revision 1.8: approval of destructive changes (spec §20.5).
import { APPROVED_RESULT, REJECTED_RESULT } from '@canvas-ai/protocol/server';
import { modelWrapper, realApp, type VariantApp } from './seams.js';
import { type BrokenVariant, must } from './variant.js';

/** The reference app with its agents' approval rules dropped: every marked output goes out at once. */
function approvalsIgnored(fixtures: Parameters<BrokenVariant['build']>[0]): VariantApp {
  return realApp(fixtures, {
    agents: (config) => ({
      ...config,
      agents: Object.fromEntries(
        Object.entries(config.agents).map(([id, { approve: _dropped, ...agent }]) => [id, agent]),
      ),
    }),
  });
}

export const APPROVAL_VARIANTS = {
  'approvals-ignored': {
    bug: "the agents config's `approve` is not read: a marked removal is sent at once, to every client",
    breaks: [must('spec §20.5', 'a server MUST NOT send an output that needs approval')],
    caughtBy: 'approvals.undeclared-not-sent',
    // No decision reaches the model, so the script's next reply has no {{answer}} to read: its hop fails.
    alsoFailing: [
      'approvals.*',
      'scenario.approval-removal-rejected',
      'scenario.approval-removal-approved',
      'hop-rules.validation-error-recovery',
    ],
    build: (fixtures) => approvalsIgnored(fixtures),
  },
  'approvals-not-held': {
    bug: "a marked removal is not held as a proposal: the agents config's `approve` is not read, so it is sent in the hop that executed it",
    breaks: [must('spec §20.5', 'a server MUST NOT send it in the hop that executed its call')],
    caughtBy: 'scenario.approval-removal-rejected',
    alsoFailing: ['approvals.*', 'scenario.approval-removal-approved', 'hop-rules.validation-error-recovery'],
    build: (fixtures) => approvalsIgnored(fixtures),
  },
  'approvals-decision-dropped': {
    bug: "the person's decision never reaches the model: every proposed change is told as rejected",
    breaks: [must('spec §20.5', 'A server MUST word them so')],
    caughtBy: 'approvals.answer-reaches-model',
    alsoFailing: ['scenario.approval-removal-approved', 'hop-rules.answer-stripped'],
    build: (fixtures) =>
      realApp(fixtures, {
        model: (scripted) =>
          modelWrapper(scripted, {
            request: (request) => ({
              ...request,
              messages: request.messages.map((message) =>
                message.role === 'tool' && message.content.startsWith(APPROVED_RESULT)
                  ? { ...message, content: REJECTED_RESULT }
                  : message,
              ),
            }),
          }),
      }),
  },
} satisfies Record<string, BrokenVariant>;

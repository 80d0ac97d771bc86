// The widget bundled the way a host bundles it: its own bundler, lit and deep-chat external, no override of ours.
// Sizes are pnpm bench's to report; this test guards what the bundle is made of.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bundleLikeAHost, forbiddenModules, HOST_BUNDLERS, HOST_ENTRIES } from '../src/host-bundles.js';

describe('the widget in a host bundle', () => {
  for (const bundler of HOST_BUNDLERS) {
    for (const [entry, source] of Object.entries(HOST_ENTRIES)) {
      it(`holds no server code, yaml or zod: ${entry} entry with ${bundler}`, async () => {
        const bundle = await bundleLikeAHost(bundler, source);

        assert.ok(
          bundle.modules.some((module) => module.startsWith('packages/widget/src/')),
          `the bundle holds the widget (modules: ${bundle.modules.join(', ')})`,
        );
        assert.ok(
          bundle.modules.every((module) => !/(^|\/)(lit|deep-chat)(@|\/)/.test(module)),
          'lit and deep-chat stay external',
        );
        assert.deepEqual(forbiddenModules(bundle), []);
      });
    }

    // The README's "app with neither" figures: the bundle must hold lit and deep-chat, or it measured nothing new.
    it(`holds lit and deep-chat when the app has neither, and still no server code: element entry with ${bundler}`, async () => {
      const bundle = await bundleLikeAHost(bundler, HOST_ENTRIES.element, 'bundled');
      const external = await bundleLikeAHost(bundler, HOST_ENTRIES.element, 'external');

      for (const library of ['lit-element', 'lit-html', 'deep-chat'])
        assert.ok(
          bundle.modules.some((module) => module.includes(`/node_modules/${library}/`)),
          `the bundle holds ${library} (modules: ${bundle.modules.join(', ')})`,
        );
      assert.ok(bundle.gzip_bytes > external.gzip_bytes, `${bundle.gzip_bytes} B > ${external.gzip_bytes} B`);
      assert.deepEqual(forbiddenModules(bundle), []);
    });

    // The guard itself: a host entry that does pull the server side in must be caught, by the real module paths.
    it(`names the forbidden modules when an entry pulls in server code (${bundler})`, async () => {
      const bundle = await bundleLikeAHost(
        bundler,
        "import { builtinTools, parseYamlData } from '@canvas-ai/protocol/server';\n" +
          "import { applyOutputs } from '@canvas-ai/protocol';\n" +
          "import * as z from 'zod';\n" +
          'globalThis.keep = [builtinTools, parseYamlData, applyOutputs, z.locales];\n',
      );

      const reasons = new Set(forbiddenModules(bundle).map((line) => line.slice(line.indexOf(': ') + 2)));
      for (const reason of [
        'yaml (only the server parses tool inputs)',
        'the built-in tools',
        "zod's translated error messages",
        "zod (a client checks with the protocol's generated checkers)",
      ])
        assert.ok(reasons.has(reason), `caught: ${reason} (got ${[...reasons].join(' | ')})`);
    });
  }
});

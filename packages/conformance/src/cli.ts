#!/usr/bin/env node
// canvas-ai-conformance: the entry point, and the only place that ends the process (0 pass, 1 a check failed, 2 usage).
import { main } from './cli-main.js';

process.exit(await main(process.argv.slice(2)));

// Rewrites checks/public-surface.txt from the entry points as they are now; commit the diff with the change.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describeSurface, REPO_ROOT, SURFACE_FILE } from './public-surface.js';

await writeFile(join(REPO_ROOT, SURFACE_FILE), await describeSurface());
console.log(`wrote ${SURFACE_FILE}`);

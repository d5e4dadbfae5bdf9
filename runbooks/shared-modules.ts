// Loaded once per workflow thread and shared by every run (the bundle's `preloadModules`), instead of evaluated
// again for each run: zod's own modules hold no per-run state, and their evaluation cost about 0.8 MB of heap per
// cached run (bench/waiting). The SDK freezes shared modules, so schemas stay out: zod defines some of a schema's
// properties on first use, which a frozen schema refuses.
import { z } from 'zod';

// zod sets its default locale (first schema) and memoizer (first container) in its config lazily; built here, that
// happens before the SDK freezes the config. Exported, so that the bundler keeps zod (its package declares no side
// effects).
export const firstSchemas = z.object({ values: z.array(z.string()) });

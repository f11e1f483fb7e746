import type { Request } from 'express';

/** A registered route: a path matcher and the methods it accepts. */
interface RouteEntry {
  match: (path: string) => boolean;
  methods: Set<string>;
}

let table: RouteEntry[] = [];

interface ExpressLayer {
  route?: { path: string; methods: Record<string, boolean> };
  match?: (path: string) => boolean;
}

/** Reads the Express router once the app is initialised, so 404s can become 405s. */
export function captureRoutes(expressApp: { router?: { stack: ExpressLayer[] } }): void {
  const stack = expressApp.router?.stack ?? [];
  table = stack
    .filter((l): l is Required<ExpressLayer> => Boolean(l.route && l.match))
    .map((l) => ({
      match: (p: string) => l.match.call(l, p),
      methods: new Set(Object.keys(l.route.methods).map((m) => m.toUpperCase())),
    }));
}

/** Methods allowed on the request's path (empty when the path is unknown). */
export function allowedMethodsFor(req: Request): string[] {
  const path = req.path;
  const methods = new Set<string>();
  for (const entry of table) {
    if (entry.match(path)) for (const m of entry.methods) if (m !== '_ALL') methods.add(m);
  }
  methods.delete(req.method.toUpperCase());
  if (methods.size === 0) return [];
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

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

interface RouterLayer {
  route?: { path: unknown; methods: Record<string, boolean | undefined> };
  match(path: string): boolean;
}

/** Whether a route answers `method` (a GET route answers HEAD too, in Express). */
function answers(route: NonNullable<RouterLayer['route']>, method: string): boolean {
  return Boolean(
    route.methods._all ||
    route.methods[method] ||
    (method === 'head' && route.methods.get) ||
    (method === 'get' && route.methods.head),
  );
}

/**
 * Moves the given routes (`"POST /api/v1/messages"`: static paths) to the front of the app's
 * routes. Express tries each route of its router in turn against every request (a regular
 * expression each): POST and GET /api/v1/messages came ~85th of ~150 (issue 15). A route moves only
 * when no route or middleware between the first route and it could answer the same method and
 * path, so every request is answered by the same route as before; one that could is left where it
 * is. Returns the routes moved. Call after `app.init()`.
 */
export function hoistRoutes(expressApp: object, routes: readonly string[]): string[] {
  const stack = (expressApp as { router?: { stack: RouterLayer[] } }).router?.stack;
  if (!stack) return [];
  const first = stack.findIndex((l) => l.route !== undefined);
  if (first < 0) return [];
  const moved: string[] = [];
  for (const spec of routes) {
    const [method, path] = spec.split(' ').map((s, i) => (i === 0 ? s.toLowerCase() : s));
    const index = stack.findIndex((l, i) => i >= first && l.route?.path === path && answers(l.route, method));
    if (index < 0) continue;
    const shadowed = stack
      .slice(first, index)
      .some((l) => !l.route || (answers(l.route, method) && (l.match(path) || l.match(`${path}/`))));
    if (shadowed) continue;
    const [layer] = stack.splice(index, 1);
    stack.splice(first + moved.length, 0, layer);
    moved.push(spec);
  }
  return moved;
}

import type { DynamicModule, Type } from '@nestjs/common';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';

/** One route the app serves: lower-case method and the path template in OpenAPI form (`{id}`). */
export interface ServedRoute {
  method: string;
  path: string;
}

/** `/api/v1/messages/:message_id` → `/api/v1/messages/{message_id}` (and a `*rest` wildcard → `{rest}`). */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/[:*]([A-Za-z0-9_]+)/g, '{$1}');
}

/** A template with its parameter names erased, for comparing paths whose parameters are named differently. */
export function pathShape(path: string): string {
  return openApiPath(path).replace(/\{[^}]+\}/g, '{}');
}

function join(...parts: Array<string | undefined>): string {
  const path = parts
    .filter((p): p is string => !!p && p !== '/')
    .map((p) => p.replace(/^\/+|\/+$/g, ''))
    .filter((p) => p !== '')
    .join('/');
  return `/${path}`;
}

function moduleParts(m: Type | DynamicModule): { cls: Type; imports: unknown[]; controllers: Type[] } {
  const dynamic = (m as DynamicModule).module ? (m as DynamicModule) : undefined;
  const cls = dynamic ? dynamic.module : (m as Type);
  const imports = [...((Reflect.getMetadata('imports', cls) as unknown[]) ?? []), ...(dynamic?.imports ?? [])];
  const controllers = [
    ...((Reflect.getMetadata('controllers', cls) as Type[]) ?? []),
    ...((dynamic?.controllers as Type[]) ?? []),
  ];
  return { cls, imports, controllers };
}

/**
 * Every route declared by the controllers of `root` and the modules it imports, read from Nest's
 * decorator metadata (no app, no database needed).
 */
export function declaredRoutes(root: Type | DynamicModule): ServedRoute[] {
  const seen = new Set<unknown>();
  const routes = new Map<string, ServedRoute>();
  const visit = (m: unknown) => {
    if (!m || (typeof m !== 'object' && typeof m !== 'function')) return;
    const { cls, imports, controllers } = moduleParts(m as Type | DynamicModule);
    if (seen.has(cls) && !(m as DynamicModule).module) return;
    seen.add(cls);
    for (const controller of controllers) {
      const prefixes = ([] as string[]).concat((Reflect.getMetadata(PATH_METADATA, controller) as string) ?? '/');
      const proto = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const handler = proto[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined) continue;
        const paths = ([] as string[]).concat((Reflect.getMetadata(PATH_METADATA, handler) as string) ?? '/');
        for (const prefix of prefixes) {
          for (const p of paths) {
            const route = { method: RequestMethod[method].toLowerCase(), path: openApiPath(join(prefix, p)) };
            routes.set(`${route.method} ${route.path}`, route);
          }
        }
      }
    }
    for (const i of imports) visit(i);
  };
  visit(root);
  return [...routes.values()].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

interface ExpressLayer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
}

/** The routes an initialised Express app actually serves (what the document must list). */
export function expressRoutes(expressApp: { router?: { stack: ExpressLayer[] } }): ServedRoute[] {
  const out = new Map<string, ServedRoute>();
  for (const layer of expressApp.router?.stack ?? []) {
    if (!layer.route) continue;
    for (const path of ([] as string[]).concat(layer.route.path)) {
      for (const [method, on] of Object.entries(layer.route.methods)) {
        if (!on || method === '_all') continue;
        const route = { method: method.toLowerCase(), path: openApiPath(path) };
        out.set(`${route.method} ${route.path}`, route);
      }
    }
  }
  return [...out.values()].sort((a, b) => a.path.localeCompare(b.path) || a.method.localeCompare(b.method));
}

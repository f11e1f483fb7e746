/**
 * GET /api/v1/openapi.json serves the committed document (src/openapi/openapi.json), and the
 * document lists exactly the routes the app serves: a route served but undocumented, or
 * documented but not served, fails here. Regenerate with `npm run openapi:generate`.
 */
import { AppModule } from '../../../src/app.module';
import { declaredRoutes, expressRoutes, pathShape, ServedRoute } from '../../../src/openapi/nest-routes';
import document from '../../../src/openapi/openapi.json';
import { startTestApp, TestApp } from '../../helpers/test-app';

type Doc = { paths: Record<string, Record<string, unknown>>; components: Record<string, Record<string, unknown>> };
const doc = document as unknown as Doc;
const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete', 'head', 'options']);

const shapes = (routes: ServedRoute[]) => new Set(routes.map((r) => `${r.method.toUpperCase()} ${pathShape(r.path)}`));

describe('the API document', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('is served at /api/v1/openapi.json without credentials', async () => {
    const res = await t.http().get('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(document);
  });

  it('documents every route served, and serves every route documented', () => {
    const served = shapes(expressRoutes(t.app.getHttpAdapter().getInstance() as Parameters<typeof expressRoutes>[0]));
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops))
        if (METHODS.has(method)) documented.add(`${method.toUpperCase()} ${pathShape(path)}`);
    }
    const undocumented = [...served].filter((r) => !documented.has(r));
    const unserved = [...documented].filter((r) => !served.has(r));
    expect({ undocumented, unserved }).toEqual({ undocumented: [], unserved: [] });
    expect(served.size).toBeGreaterThan(50);
  });

  it('reads the same routes from Nest metadata as Express serves (what the generator relies on)', () => {
    const declared = shapes(declaredRoutes(AppModule.forRoot(t.config, 'postgres://unused@localhost/unused')));
    const served = shapes(expressRoutes(t.app.getHttpAdapter().getInstance() as Parameters<typeof expressRoutes>[0]));
    expect([...declared].sort()).toEqual([...served].sort());
  });

  it('resolves every $ref inside the document', () => {
    const unresolved: string[] = [];
    const walk = (node: unknown) => {
      if (!node || typeof node !== 'object') return;
      const ref = (node as { $ref?: unknown }).$ref;
      if (typeof ref === 'string') {
        const [, , kind, name] = ref.split('/');
        if (!doc.components[kind]?.[name]) unresolved.push(ref);
      }
      for (const v of Object.values(node)) walk(v);
    };
    walk(doc);
    expect(unresolved).toEqual([]);
    for (const ops of Object.values(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        if (METHODS.has(method)) expect(Object.keys((op as { responses: object }).responses).length).toBeGreaterThan(0);
      }
    }
  });
});

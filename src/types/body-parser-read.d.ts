// body-parser exports its lib/ files ("./lib/*" in its package.json) without type declarations.
declare module 'body-parser/lib/read' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  /** Reads a request's body (charset, Content-Encoding, size limit) and parses it with `parse`. */
  function read(
    req: IncomingMessage,
    res: ServerResponse,
    next: (err?: unknown) => void,
    parse: (body: string, encoding: string) => unknown,
    debug: (message: string) => void,
    options: object,
  ): void;
  export = read;
}

declare module 'body-parser/lib/utils' {
  import type { Request } from 'express';

  /**
   * The options every body-parser parser normalises (limit, inflate, verify, charset, type check:
   * `type` is a media type, or a function of the (Express) request that says whether to parse it).
   */
  export function normalizeOptions(
    options: {
      limit?: number | string;
      inflate?: boolean;
      type?: string | ((req: Request) => boolean);
    },
    defaultType: string,
  ): object;
}

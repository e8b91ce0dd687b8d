// The shape of a route handler: polka's request, Node's response; errors are thrown.
import type { ServerResponse } from 'node:http';
import type { Request } from 'polka';

export type Handler = (req: Request, res: ServerResponse) => Promise<void>;

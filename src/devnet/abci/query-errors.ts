// Errors of gRPC queries served over ABCI, as baseapp converts gRPC status codes
// (NotFound → key not found, InvalidArgument → invalid request).
import { ChainError, SdkErrors } from '../errors.ts';

export const queryErrors = {
  notFound: (desc: string) => new ChainError('sdk', 22, 'key not found', `rpc error: code = NotFound desc = ${desc}`),
  invalidArgument: (desc: string) =>
    new ChainError('sdk', 18, 'invalid request', `rpc error: code = InvalidArgument desc = ${desc}`),
  unknownPath: (path: string) => SdkErrors.unknownRequest(`unknown query path: ${path}`),
};

// The base of the service's own errors: anything that is a ServiceError was raised on
// purpose by this code and says what went wrong in its message; anything else is a bug
// or a library's failure.
export class ServiceError extends Error {
  override name = 'ServiceError';
}

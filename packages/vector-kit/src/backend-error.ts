import { ZerdaError, createError } from '@zerda/types';

/**
 * A backend failure as a ZerdaError (`ZERDA_BACKEND_ERROR` naming the component, the operation
 * and the backend's message, with the original error as `cause`). A ZerdaError passes through
 * unchanged, so validation errors raised inside a backend call keep their code.
 */
export function backendError(component: string, operation: string, error: unknown): ZerdaError {
  if (ZerdaError.isInstance(error)) return error;
  return createError('ZERDA_BACKEND_ERROR', { component, operation, reason: error instanceof Error ? error.message : String(error) }, error);
}

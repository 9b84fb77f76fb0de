import type { HttpHandler, HttpRequest, HttpResponseInit, InvocationContext } from '@azure/functions';
import type { FunctionDeps } from '../function-deps.js';
import {
  problemResponse,
  type FunctionLog,
  type FunctionRequest,
  type FunctionResponse,
} from '../../../src/wire/serverless/function-http.js';
import { FunctionSettingsError } from '../settings/function-settings.js';
import { depsFromSettings } from './deps-from-settings.js';
import { runInInvocationTrace } from './invocation-trace.js';

export type FunctionBody = (req: FunctionRequest, deps: FunctionDeps, log: FunctionLog) => Promise<FunctionResponse>;

/**
 * An Azure Functions HTTP handler around a portable handler: HttpRequest → FunctionRequest →
 * handler → HttpResponseInit. Settings come from `settings()` (process.env, read by the
 * registration file). Whatever goes wrong is logged and answered as a problem, never as the error.
 */
export function httpFunction(
  body: FunctionBody,
  settings: () => Readonly<Record<string, string | undefined>>,
): HttpHandler {
  return async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    const req = await toFunctionRequest(request, context);
    let deps: FunctionDeps;
    try {
      deps = depsFromSettings(settings());
    } catch (err) {
      if (err instanceof FunctionSettingsError) context.error(err.message);
      else context.error('function app settings could not be read', err);
      return toResponseInit(problemResponse(req, 'CONFIG_INVALID', 'The function app is not configured; see its log.'));
    }
    const log: FunctionLog = { warn: (obj, msg) => context.warn(msg, obj) };
    try {
      return toResponseInit(await runInInvocationTrace(context, () => body(req, deps, log)));
    } catch (err) {
      context.error('unhandled exception', err);
      return toResponseInit(problemResponse(req, 'HTTP_INTERNAL', 'An unexpected error occurred.'));
    }
  };
}

async function toFunctionRequest(request: HttpRequest, context: InvocationContext): Promise<FunctionRequest> {
  return {
    authorization: request.headers.get('authorization') ?? undefined,
    body: await request.text(),
    path: new URL(request.url).pathname,
    traceId: traceIdOf(context),
  };
}

function toResponseInit(response: FunctionResponse): HttpResponseInit {
  return {
    status: response.status,
    headers: { ...response.headers },
    ...(response.body === undefined ? {} : { body: response.body }),
  };
}

/** The W3C trace id of the invocation (Application Insights correlates by it), else the invocation id. */
function traceIdOf(context: InvocationContext): string {
  const match = /^[\da-f]{2}-([\da-f]{32})-/.exec(context.traceContext?.traceParent ?? '');
  return match?.[1] ?? context.invocationId;
}

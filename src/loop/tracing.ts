/**
 * @module
 * OpenTelemetry spans around provider sends, when the caller installed `@opentelemetry/api` and a
 * tracer provider. The API is an optional peer dependency: without it, spans cost nothing.
 */

type Attributes = Record<string, string | number | boolean | undefined>;

interface Span {
  setAttribute(key: string, value: string | number | boolean): void;
  recordException(error: unknown): void;
  setStatus(status: { code: number; message?: string }): void;
  end(): void;
}

interface Tracer {
  startActiveSpan<T>(name: string, fn: (span: Span) => T): T;
}

let tracer: Promise<Tracer | undefined> | undefined;

function loadTracer(): Promise<Tracer | undefined> {
  tracer ??= import('@opentelemetry/api').then(
    (api) => api.trace.getTracer('spillway') as unknown as Tracer,
    () => undefined,
  );
  return tracer;
}

/** Runs `work` inside a span named `name` with `attributes`; the span records failures. */
export async function withSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>): Promise<T> {
  const active = await loadTracer();
  if (!active) return work();
  return active.startActiveSpan(name, async (span) => {
    for (const [key, value] of Object.entries(attributes))
      if (value !== undefined) span.setAttribute(`spillway.${key}`, value);
    try {
      return await work();
    } catch (error) {
      span.recordException(error);
      span.setStatus({ code: 2, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

import type { Binder, Endpoint, EndpointFilter, EndpointOptions, Handler } from './endpoint.js';
import type { Metadata } from './http-context.js';
import { parseTemplate } from './route-template.js';

/**
 * Registers endpoints. A group shares a prefix, metadata and filters with its endpoints; groups
 * nest, and their filters run outer to inner before the endpoint's own.
 */
export class EndpointGroup {
  readonly #prefix: string;
  readonly #metadata: Metadata;
  readonly #filters: EndpointFilter[] = [];
  readonly #sink: Endpoint[];
  readonly #parentFilters: () => readonly EndpointFilter[];

  constructor(
    sink: Endpoint[],
    prefix = '',
    metadata: Metadata = {},
    parentFilters: () => readonly EndpointFilter[] = () => [],
  ) {
    this.#sink = sink;
    this.#prefix = prefix.replace(/\/$/, '');
    this.#metadata = metadata;
    this.#parentFilters = parentFilters;
  }

  /** Adds a filter that runs around every endpoint of this group (registered before or after it). */
  addFilter(filter: EndpointFilter): this {
    this.#filters.push(filter);
    return this;
  }

  group(prefix: string, metadata: Metadata = {}): EndpointGroup {
    return new EndpointGroup(this.#sink, this.#prefix + prefix, { ...this.#metadata, ...metadata }, () =>
      this.#allFilters(),
    );
  }

  map<T = undefined>(
    methods: readonly string[] | null,
    template: string,
    handler: Handler<T>,
    options: EndpointOptions<T> = {},
  ): Endpoint {
    const fullTemplate = this.#prefix + (template === '/' && this.#prefix ? '' : template) || '/';
    const upper = methods?.map((m) => m.toUpperCase()) ?? null;
    const groupFilters = () => this.#allFilters();
    const ownFilters = options.filters ?? [];
    const endpoint: Endpoint = {
      displayName: options.name ?? `${upper?.join(',') ?? '*'} ${fullTemplate}`,
      template: parseTemplate(fullTemplate),
      methods: upper,
      accepts: options.accepts?.map((a) => a.toLowerCase()) ?? null,
      host: options.host?.toLowerCase(),
      order: options.order ?? 0,
      metadata: { ...this.#metadata, ...options.metadata },
      // Read lazily: group filters added after an endpoint still apply to it.
      get filters() {
        return [...groupFilters(), ...ownFilters];
      },
      bind: options.bind as Binder<unknown> | undefined,
      handler: handler as Handler<any>,
      ...(options.invoke ? { invoke: options.invoke } : {}),
    };
    this.#sink.push(endpoint);
    return endpoint;
  }

  get<T = undefined>(template: string, handler: Handler<T>, options?: EndpointOptions<T>) {
    return this.map(['GET', 'HEAD'], template, handler, options);
  }
  post<T = undefined>(template: string, handler: Handler<T>, options?: EndpointOptions<T>) {
    return this.map(['POST'], template, handler, options);
  }
  put<T = undefined>(template: string, handler: Handler<T>, options?: EndpointOptions<T>) {
    return this.map(['PUT'], template, handler, options);
  }
  delete<T = undefined>(template: string, handler: Handler<T>, options?: EndpointOptions<T>) {
    return this.map(['DELETE'], template, handler, options);
  }

  #allFilters(): readonly EndpointFilter[] {
    return [...this.#parentFilters(), ...this.#filters];
  }
}

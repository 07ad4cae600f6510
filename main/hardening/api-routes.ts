// Every route the server serves, read from its own OpenAPI document at
// /api/schema/, so a route added to the engine is attacked and checked by the
// hardening suite without anyone listing it here. Also: which JSON types a body
// field accepts (to send it the ones it must refuse), and filling path templates.
import type { HardeningServer } from './hardening-server.ts';

export type JsonSchema = {
  type?: string;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  nullable?: boolean;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: unknown[];
  $ref?: string;
};

export interface ApiOperation {
  method: string;
  /** OpenAPI path, e.g. `/api/orgs/{org_id}/projects/{id}/`. */
  template: string;
  pathParams: string[];
  queryParams: string[];
  /** Query parameters the route requires that have one allowed value (`fieldset=list` of the systems resource): what a valid request sends. */
  requiredQuery: Record<string, string>;
  /** The documented request body: JSON (with its schema), multipart, or none. */
  body: { kind: 'json'; schema: JsonSchema } | { kind: 'multipart' } | null;
  /** `security: []`: needs no token. */
  isPublic: boolean;
  /** Under /api/orgs/{org_id}/: resolveActor decides who gets in. */
  isOrgScoped: boolean;
}

export const operationName = (operation: ApiOperation) => `${operation.method} ${operation.template}`;

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string; required?: boolean; schema?: JsonSchema }>;
  requestBody?: { content: Record<string, { schema?: JsonSchema }> };
  security?: unknown[];
}

export async function listOperations(server: HardeningServer): Promise<ApiOperation[]> {
  const response = await server.request({ method: 'GET', path: '/api/schema/' });
  if (response.status !== 200) throw new Error(`GET /api/schema/: ${response.status}`);
  const document = response.json as { paths: Record<string, Record<string, OpenApiOperation>>; components?: { schemas?: Record<string, JsonSchema> } };
  const resolve = (schema: JsonSchema): JsonSchema =>
    schema.$ref ? resolve(document.components?.schemas?.[schema.$ref.replace('#/components/schemas/', '')] ?? {}) : schema;
  const operations: ApiOperation[] = [];
  for (const [template, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const content = operation.requestBody?.content ?? {};
      const jsonSchema = content['application/json']?.schema;
      operations.push({
        method: method.toUpperCase(),
        template,
        pathParams: (operation.parameters ?? []).filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name),
        queryParams: (operation.parameters ?? []).filter((parameter) => parameter.in === 'query').map((parameter) => parameter.name),
        requiredQuery: Object.fromEntries(
          (operation.parameters ?? [])
            .filter((parameter) => parameter.in === 'query' && parameter.required && parameter.schema?.enum?.length === 1)
            .map((parameter) => [parameter.name, String(parameter.schema!.enum![0])]),
        ),
        body: jsonSchema ? { kind: 'json', schema: resolve(jsonSchema) } : content['multipart/form-data'] ? { kind: 'multipart' } : null,
        isPublic: Array.isArray(operation.security) && operation.security.length === 0,
        isOrgScoped: template.startsWith('/api/orgs/{org_id}'),
      });
    }
  }
  if (operations.length < 20) throw new Error(`the OpenAPI document lists only ${operations.length} operations`);
  return operations;
}

/** Puts each `{param}` of the template in, exactly as given (the caller encodes). */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for {${name}} in ${template}`);
    return value;
  });
}

export type JsonKind = 'string' | 'integer' | 'fraction' | 'boolean' | 'null' | 'array' | 'object';
export const JSON_KINDS: readonly JsonKind[] = ['string', 'integer', 'fraction', 'boolean', 'null', 'array', 'object'];

/** The kinds of JSON value a schema accepts; 'any' when it does not constrain the type. */
export function acceptedKinds(schema: JsonSchema): Set<JsonKind> | 'any' {
  const kinds = new Set<JsonKind>();
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) {
    for (const branch of branches) {
      const accepted = acceptedKinds(branch);
      if (accepted === 'any') return 'any';
      accepted.forEach((kind) => kinds.add(kind));
    }
  } else if (schema.type) {
    if (schema.type === 'number') kinds.add('integer').add('fraction');
    else if (schema.type === 'integer') kinds.add('integer');
    else kinds.add(schema.type as JsonKind);
  } else {
    return 'any';
  }
  if (schema.nullable) kinds.add('null');
  return kinds;
}

/** Kinds of value the schema must refuse. */
export function refusedKinds(schema: JsonSchema): JsonKind[] {
  const accepted = acceptedKinds(schema);
  return accepted === 'any' ? [] : JSON_KINDS.filter((kind) => !accepted.has(kind));
}

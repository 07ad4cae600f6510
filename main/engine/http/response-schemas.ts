// Response schemas are of two sorts. Most are enforced: Fastify encodes the answer
// with fastify-type-provider-zod's serializer, which keeps the schema's keys in the
// schema's order and drops any other. A few are documented only: the OpenAPI
// document shows them and the route's return type is checked against them, but the
// answer is written as the handler built it, with JSON.stringify as Fastify does
// for a route with no response schema.
//
// Projects are documented only: their answers carry the hosted service's
// free-form values (systems, costing, custom_data, attributes stored as a sync
// received them), which a strict encode would turn into a 500 where the API
// answered before, and a list page of 1,000 studio rows would be walked field by
// field on every request.
import type { FastifySerializerCompiler } from 'fastify';
import { serializerCompiler } from 'fastify-type-provider-zod';
import type { z } from 'zod';

const documentedOnly = new WeakSet<z.ZodType>();

/** The type of an answer sent as JSON text already written (a kept answer): Fastify sends such a string as it is. */
export const JSON_TEXT_TYPE = 'application/json; charset=utf-8';

/** `schema`, shown in the OpenAPI document but not run on each answer (see above for when). */
export function documentedResponse<Schema extends z.ZodType>(schema: Schema): Schema {
  documentedOnly.add(schema);
  return schema;
}

export const responseSerializerCompiler: FastifySerializerCompiler<z.ZodType | { properties: z.ZodType }> = (route) =>
  documentedOnly.has(route.schema as z.ZodType) ? (data) => JSON.stringify(data) : serializerCompiler(route);

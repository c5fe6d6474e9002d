// The contract between the documents and the answers: an answer waybill gives must be one its
// operation in its Worker's document describes (docs/openapi.json for the data plane,
// docs/admin-openapi.json for the admin plane: the status, the content type, the body against the
// schema; a problem against the problem schema). test/contract/setup.ts runs every answer the
// test suite produces through `checkAnswer` or `checkAdminAnswer`.

import { Validator, type Schema } from '@cfworker/json-schema'
import adminDocument from '../../docs/admin-openapi.json'
import document from '../../docs/openapi.json'
import { problemType } from '../../src/http/problem'

interface MediaTypeObject {
  schema?: Schema
}
interface ResponseObject {
  content?: Record<string, MediaTypeObject>
}
interface OperationObject {
  operationId?: string
  responses: Record<string, ResponseObject>
}
type PathItem = Record<string, OperationObject>

/** A path template as a pattern: `{key}` takes the rest of the path (slashes and all). */
function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) =>
      part === '{key}'
        ? '.+'
        : part.startsWith('{')
          ? '[^/]+'
          : part.replace(/[.*+?^$()|[\]\\]/g, '\\$&'),
    )
    .join('')
  return new RegExp(`^${source}$`)
}

// One validator per schema object (the document's schemas are plain objects, compiled once).
const validators = new WeakMap<object, Validator>()
function validatorFor(schema: Schema): Validator {
  let validator = validators.get(schema)
  if (validator === undefined) {
    validator = new Validator(schema, '2020-12', false)
    validators.set(schema, validator)
  }
  return validator
}

/** What a document says, as the check reads it. */
interface Contract {
  readonly paths: Record<string, PathItem>
  readonly templates: readonly { template: string; pattern: RegExp }[]
  /** What no operation answers: an unknown path, or a method its path does not take. */
  readonly outside: Record<404 | 405, Schema>
}

function contractOf(source: { paths: object }): Contract {
  const paths = source.paths as unknown as Record<string, PathItem>
  /** A problem schema of the document's (any operation's will do) whose `type` is `code`'s only. */
  const problemOf = (code: 'not_found' | 'method_not_allowed'): Schema => {
    const shared = paths['/healthz']!.get!.responses['503']!.content!['application/problem+json']!
      .schema! as Schema & { properties: Record<string, Schema> }
    return {
      ...shared,
      properties: { ...shared.properties, type: { const: problemType(code) } },
    }
  }
  return {
    paths,
    templates: Object.keys(paths).map((template) => ({
      template,
      pattern: templatePattern(template),
    })),
    outside: { 404: problemOf('not_found'), 405: problemOf('method_not_allowed') },
  }
}

const DATA_PLANE = contractOf(document)
const ADMIN_PLANE = contractOf(adminDocument)

/** What a checked answer was: the request that got it, and the answer itself. */
export interface Answer {
  method: string
  url: string
  status: number
  contentType: string | null
  /** The body as text (empty for none), or undefined when it could not be read (see setup.ts). */
  body: string | undefined
}

const essence = (contentType: string | null) =>
  contentType === null ? null : contentType.split(';')[0]!.trim().toLowerCase()

function bodyProblems(answer: Answer, schema: Schema | undefined, where: string): string[] {
  if (schema === undefined || answer.method === 'HEAD' || answer.body === undefined) return []
  const type = essence(answer.contentType)
  if (type !== 'application/json' && type !== 'application/problem+json') return []
  let value: unknown
  try {
    value = JSON.parse(answer.body)
  } catch {
    return [`${where}: the body is not JSON: ${answer.body.slice(0, 200)}`]
  }
  const result = validatorFor(schema).validate(value)
  return result.valid
    ? []
    : [
        `${where}: the body breaks its schema: ${result.errors
          .slice(-5)
          .map((e) => `${e.instanceLocation} ${e.error}`)
          .join('; ')} (body: ${answer.body.slice(0, 300)})`,
      ]
}

/**
 * What is wrong with `answer` for the document: its operation's responses must name its status
 * (or `default`), one of that response's content types must be its own, and its body must hold
 * to that content's schema. Where the document has no operation for the method and path (a wrong
 * method, an unknown path), the answer must be the 405 or 404 problem.
 *
 * @example
 * checkAnswer({ method: 'GET', url: 'https://w.example/healthz', status: 200,
 *   contentType: 'application/json', body: '{"ok":true}' }) // []
 */
export function checkAnswer(answer: Answer, contract: Contract = DATA_PLANE): string[] {
  const { paths, templates, outside } = contract
  const url = new URL(answer.url)
  const where = `${answer.method} ${url.pathname} → ${answer.status}`
  const method = answer.method === 'HEAD' ? 'get' : answer.method.toLowerCase()
  const matched = templates.find(({ pattern }) => pattern.test(url.pathname))
  const operation = matched === undefined ? undefined : paths[matched.template]![method]
  // A CORS preflight is the browser's protocol, answered before any operation (src/middleware/cors.ts).
  if (answer.method === 'OPTIONS' && answer.status === 204) return []
  if (operation === undefined) {
    // Outside the document: an unknown path is the 404 problem, another method the 405 problem.
    const expected = matched === undefined ? 404 : 405
    if (answer.status !== expected) {
      return [`${where}: no operation answers this; expected the ${expected} problem`]
    }
    return bodyProblems(answer, outside[expected], where)
  }
  const label = `${where} (${operation.operationId ?? matched!.template})`
  const response = operation.responses[String(answer.status)] ?? operation.responses.default
  if (response === undefined) {
    return [`${label}: the document lists no ${answer.status} for this operation`]
  }
  const content = response.content
  // A response the document gives no content describes no body to hold to.
  if (content === undefined) return []
  if (answer.method === 'HEAD' && answer.body === '') return []
  const type = essence(answer.contentType)
  const media = type === null ? undefined : content[type]
  if (media === undefined) {
    return [
      `${label}: content type ${answer.contentType ?? 'none'} is not one the document lists (${Object.keys(content).join(', ')})`,
    ]
  }
  return bodyProblems(answer, media.schema, label)
}

/** `checkAnswer` against the admin plane's document (docs/admin-openapi.json). */
export function checkAdminAnswer(answer: Answer): string[] {
  return checkAnswer(answer, ADMIN_PLANE)
}

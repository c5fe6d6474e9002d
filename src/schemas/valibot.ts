// The valibot shapes waybill builds its schemas from, with valibot's public API only, and the one
// way issues become field errors.
//
// A client learns every unknown field at once (valibot's strictObject names the first), an array
// or a record must be one (valibot's objects and records take an array as an object), and a batch
// of 100,000 bad items costs no more than the first MAX_REPORTED_ERRORS of them (valibot's array
// checks every item whatever it finds).

import * as v from 'valibot'
import { MAX_REPORTED_ERRORS } from '../limits'
import { invalid, type FieldError } from '../errors'

/** True for a JSON object (not an array): what cross-field checks look inside. */
export function isRecord(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** How a JSON value's type reads in a message: `a string`, `an array`, `null`. */
export function typeName(value: unknown): string {
  if (value === null) return 'null'
  if (value === undefined) return 'undefined'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
}

type Messages = {
  /** When the value is not an object: what it must be (`, not <type>` is added). */
  type?: string | undefined
  /** Per field, when it is missing; `is required` otherwise. */
  required?: Readonly<Record<string, string>> | undefined
  /** What its members are called in messages: `field` (JSON bodies) or `parameter` (queries). */
  noun?: 'field' | 'parameter' | undefined
}

const full = (issues: readonly unknown[] | undefined) =>
  (issues?.length ?? 0) >= MAX_REPORTED_ERRORS

/**
 * The fields of an object that is known to be one (a variant's option, path parameters): unknown
 * fields are errors, each one named, up to the cap. Anything else should use `strict`.
 *
 * @example
 * const Put = strictFields({ mode: v.literal('put'), key: ObjectKey })
 */
export function strictFields<const TEntries extends v.ObjectEntries>(
  entries: TEntries,
  messages: Messages = {},
) {
  const known = `is not a known ${messages.noun ?? 'field'} (known: ${Object.keys(entries).join(', ')})`
  const type = messages.type ?? 'must be a JSON object'
  const object = v.strictObject(entries, (issue) => {
    if (issue.expected === 'never') return known
    const missing = issue.path?.[0]?.key
    if (typeof missing !== 'string') return `${type}, not ${typeName(issue.input)}`
    return messages.required?.[missing] ?? 'is required'
  })
  return v.pipe(
    object,
    // valibot names the first unknown field (an issue at that key expecting "never"), with the
    // object as sent in its path; the others are named here.
    v.rawCheck(({ dataset: { issues }, addIssue }) => {
      if (issues === undefined) return
      let input: Record<string, unknown> | undefined
      const named = new Set<string>()
      for (const { expected, path } of issues) {
        const at = path?.length === 1 ? path[0] : undefined
        if (expected === 'never' && at?.type === 'object' && at.origin === 'key') {
          input = at.input
          named.add(at.key)
        }
      }
      if (input === undefined) return
      for (const key in input) {
        if (!Object.hasOwn(input, key) || Object.hasOwn(entries, key) || named.has(key)) continue
        if (full(issues)) return
        addIssue({
          message: known,
          input: key,
          expected: 'never',
          path: [{ type: 'object', origin: 'key', input, key, value: input[key] }],
        })
      }
    }),
  )
}

/**
 * A strict object: anything but a JSON object is refused by its type, and unknown fields are
 * errors, each one named, up to the cap.
 *
 * @example
 * const Body = strict({ origin: OriginName, expiresIn: v.optional(ExpiresIn) })
 */
export function strict<const TEntries extends v.ObjectEntries>(
  entries: TEntries,
  messages: Messages = {},
) {
  const type = messages.type ?? 'must be a JSON object'
  return v.pipe(
    v.custom<v.InferInput<v.StrictObjectSchema<TEntries, undefined>>>(
      isRecord,
      (issue) => `${type}, not ${typeName(issue.input)}`,
    ),
    strictFields(entries, messages),
  )
}

// Each list's item schema, for the OpenAPI document (src/openapi.ts): a list checks its items
// itself, so valibot's JSON Schema converter sees an array of anything.
const listItems = new WeakMap<object, v.GenericSchema>()

/** The item schema of a `list` (its first schema, as the JSON Schema converter meets it). */
export function listItemOf(schema: object): v.GenericSchema | undefined {
  return listItems.get(schema)
}

/**
 * An array whose items are checked one by one until the cap of reported problems: past it, the
 * rest are not looked at.
 *
 * @example
 * const Keys = v.pipe(list(ObjectKey), v.minLength(1, 'must contain at least one entry'))
 */
export function list<const TItem extends v.GenericSchema>(
  item: TItem,
  typeMessage = (input: unknown) => `must be an array, not ${typeName(input)}`,
) {
  const array = v.custom<v.InferInput<TItem>[]>(Array.isArray, (issue) => typeMessage(issue.input))
  listItems.set(array, item)
  return v.pipe(
    array,
    v.rawTransform(({ dataset, addIssue, NEVER }) => {
      const input = dataset.value
      const output = new Array<v.InferOutput<TItem>>(input.length)
      for (let key = 0; key < input.length; key++) {
        if (full(dataset.issues)) return NEVER
        const result = v.safeParse(item, input[key])
        if (result.success) {
          output[key] = result.output
          continue
        }
        for (const issue of result.issues) {
          if (full(dataset.issues)) return NEVER
          const at: v.ArrayPathItem = {
            type: 'array',
            origin: 'value',
            input,
            key,
            value: input[key],
          }
          addIssue({
            message: issue.message,
            input: issue.input,
            path: [at, ...(issue.path ?? [])],
          })
        }
      }
      return dataset.issues === undefined ? output : NEVER
    }),
  )
}

/** A record whose input must be a JSON object: valibot's own takes an array as one. */
export function record<
  const TKey extends v.GenericSchema<string, string | number | symbol>,
  const TValue extends v.GenericSchema,
>(key: TKey, value: TValue, typeMessage: (input: unknown) => string) {
  const message = (issue: v.BaseIssue<unknown>) => typeMessage(issue.input)
  return v.pipe(
    v.custom<Record<v.InferInput<TKey>, v.InferInput<TValue>>>(isRecord, message),
    v.record(key, value, message),
  )
}

/**
 * The issue path to a value inside `input` (`pathTo(body, 'items', 3, 'response')`), for checks
 * that look at several fields at once.
 */
export function pathTo(
  input: unknown,
  ...keys: [string | number, ...(string | number)[]]
): [v.IssuePathItem, ...v.IssuePathItem[]] {
  let current = input
  const path = keys.map((key): v.IssuePathItem => {
    const container = current
    if (Array.isArray(container) && typeof key === 'number') {
      current = container[key]
      return { type: 'array', origin: 'value', input: container, key, value: current }
    }
    const record = (container ?? {}) as Record<string, unknown>
    current = record[key]
    return { type: 'object', origin: 'value', input: record, key: String(key), value: current }
  })
  return path as [v.IssuePathItem, ...v.IssuePathItem[]]
}

/**
 * Field errors for issues: the dotted path (`items.3.key`) and the message, one per field (a value
 * that misses several rules of one field is one problem), up to the cap.
 */
export function fieldErrors(
  issues: readonly {
    message: string
    path?: readonly (PropertyKey | { key: unknown })[] | undefined
  }[],
): FieldError[] {
  const errors: FieldError[] = []
  for (const issue of issues) {
    const path =
      issue.path === undefined || issue.path.length === 0
        ? 'body'
        : issue.path.map((item) => String(typeof item === 'object' ? item.key : item)).join('.')
    if (errors.at(-1)?.path === path) continue
    errors.push({ path, message: issue.message })
    if (errors.length >= MAX_REPORTED_ERRORS) break
  }
  return errors
}

/**
 * The value `schema` makes of `input`, or a 400 naming every field it refuses.
 *
 * @example
 * const body = parse(SignBody, await readJsonBody(c))
 */
export function parse<const TSchema extends v.GenericSchema>(
  schema: TSchema,
  input: unknown,
): v.InferOutput<TSchema> {
  const result = v.safeParse(schema, input)
  if (!result.success) throw invalid(fieldErrors(result.issues))
  return result.output
}

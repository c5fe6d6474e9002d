/** Where an S3 bucket is reached: the URL prefix every object URL starts with. */
export interface S3Endpoint {
  /** `https:` or `http:` */
  protocol: string
  /** Host as the client will send it, with the port when it is not the default. */
  host: string
  /** `''` for virtual-hosted style, `/bucket` for path style. */
  basePath: string
}

export type AddressingStyle = 'virtual' | 'path'

export interface S3LocationInput {
  bucket: string
  region: string
  /** Custom endpoint origin such as `http://127.0.0.1:7070`; AWS's regional endpoint when absent. */
  endpoint?: string | undefined
  style: AddressingStyle
}

/**
 * Resolves bucket, region, endpoint and style into the host and path prefix of object URLs.
 * AWS uses the regional endpoint for every region, us-east-1 included.
 *
 * @example
 * resolveS3Endpoint({ bucket: 'photos', region: 'eu-west-1', style: 'virtual' })
 * // { protocol: 'https:', host: 'photos.s3.eu-west-1.amazonaws.com', basePath: '' }
 */
export function resolveS3Endpoint(input: S3LocationInput): S3Endpoint {
  const base = new URL(input.endpoint ?? `https://s3.${input.region}.amazonaws.com`)
  if (input.style === 'virtual') {
    return { protocol: base.protocol, host: `${input.bucket}.${base.host}`, basePath: '' }
  }
  return { protocol: base.protocol, host: base.host, basePath: `/${input.bucket}` }
}

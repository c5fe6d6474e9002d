// The encoders in Node, whose Uint8Array has no toBase64 (24): the fallback's path.
import { describeBase64 } from './base64-vectors'

describeBase64('Node')

// Browser uploads straight to the bucket, one operation per file: issuing them (issue.ts), the
// multipart follow-ups (multipart.ts) and the completion check of PUT and POST uploads (check.ts),
// each checked against what waybill sealed when it signed (sealed.ts).

export { checkUpload } from './check'
export { issueUpload, uploadOrigin } from './issue'
export { abortUpload, completeUpload, moreParts, uploadedParts } from './multipart'

/**
 * The test store (tests/support/s3.ts) in a process of its own, for a benchmark whose client and
 * app must not share the store's event loop: prints one JSON line with its endpoint, bucket and
 * keys, and closes on SIGTERM.
 */
import { startTestS3 } from './s3.ts'

const s3 = await startTestS3()
console.log(JSON.stringify({ endpoint: s3.endpoint, bucket: s3.bucket, region: s3.region, accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey }))
process.on('SIGTERM', () => {
  void s3.close().finally(() => process.exit(0))
})

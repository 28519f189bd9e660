// Print the piece commitment root (hex) that @web3-storage/data-segment computes for a payload.
// Usage: node tests/js/piece_root.mjs PAYLOAD_FILE
// Piece.fromPayload zero-pads the payload to the next 127 * 2^k bytes, Fr32-pads it and
// builds the sha254 tree; .root is that tree's root, i.e. comm_d of the padded piece.
import { readFileSync } from 'node:fs'
import { Piece } from '@web3-storage/data-segment'

const path = process.argv[2]
if (!path) {
  console.error('usage: node piece_root.mjs PAYLOAD_FILE')
  process.exit(2)
}
const payload = new Uint8Array(readFileSync(path))
const piece = Piece.fromPayload(payload)
console.log(Buffer.from(piece.root).toString('hex'))

// Trims anvil's --dump-state output to what the tests need, and gzips it.
// Kept: every account with its code and storage, the block environment, and
// the blocks (with their transactions and receipts, without call traces)
// from `keepFrom` to the last one, so the trading history can still be read
// with eth_getLogs and eth_getTransactionReceipt after a load. The deployment blocks before that
// are dropped (most of the dump's size). anvil refuses to load unless
// best_block_number names a block that is present ("Best hash not found").
// Keys are sorted so the JSON does not depend on anvil's map order.
import { readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

function sortKeys(value) {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, sortKeys(value[k])]));
  }
  return value;
}

const blockNumber = (b) => Number(BigInt(b.header.number));

export function trimState(fullFile, { keepFrom }) {
  const full = JSON.parse(readFileSync(fullFile, "utf8"));
  const best = Number(BigInt(full.best_block_number));
  const blocks = full.blocks.filter((b) => blockNumber(b) >= keepFrom).sort((a, b) => blockNumber(a) - blockNumber(b));
  if (!blocks.some((b) => blockNumber(b) === best)) throw new Error(`state: best block ${best} is not among the kept blocks`);
  const kept = new Set(blocks.map(blockNumber));
  // Call traces are ~85% of each transaction's size and only serve
  // trace/debug RPCs; receipts and logs stay.
  const transactions = full.transactions
    .filter((t) => kept.has(Number(t.block_number)))
    .sort((a, b) => a.block_number - b.block_number || a.info.transaction_index - b.info.transaction_index)
    .map((t) => ({ ...t, info: { ...t.info, traces: [] } }));
  const trimmed = {
    block: full.block,
    accounts: full.accounts,
    best_block_number: full.best_block_number,
    blocks,
    transactions,
    historical_states: null,
  };
  return {
    state: trimmed,
    stats: {
      full_blocks: full.blocks.length,
      full_transactions: full.transactions.length,
      kept_blocks: blocks.length,
      kept_transactions: transactions.length,
      accounts: Object.keys(full.accounts).length,
      best_block: best,
    },
  };
}

export function writeStateGz(state, file) {
  const json = JSON.stringify(sortKeys(state));
  // Node writes a gzip header with mtime 0, so equal JSON gives equal bytes.
  const gz = gzipSync(Buffer.from(json), { level: 9 });
  writeFileSync(file, gz);
  return { json_bytes: Buffer.byteLength(json), gz_bytes: gz.length };
}

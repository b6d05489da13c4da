// Shared build context: the RPC, the deployer, the token registry, funding,
// and the chain clock.
//
// Time: anvil normally stamps blocks with wall-clock time (offset from
// --timestamp), which would make every rebuild differ. build.mjs therefore
// turns on anvil_setBlockTimestampInterval(2) before the first transaction:
// every block is then exactly 2 s after the previous one (Base's block time),
// and jumps are made with evm_setNextBlockTimestamp. (evm_increaseTime has no
// effect while an interval is set.)
import { MaxUint256, getAddress, parseUnits } from "ethers";
import { LocalSigner } from "./signer.mjs";
import { labelledKey } from "./keys.mjs";
import { ERC20_ABI } from "./tokens.mjs";
import { contractAt } from "./rpc.mjs";

export const BLOCK_INTERVAL = 2;

export class Chain {
  constructor(rpc, deployer) {
    this.rpc = rpc;
    this.deployer = getAddress(deployer);
    this.tokens = {}; // symbol -> contract bound to the deployer
    this.decimals = {}; // symbol -> number
    this.signers = {}; // label -> LocalSigner
    this.wethStock = 0n; // deployer's unspent WETH, to wrap only when short
  }

  async startClock() {
    await this.rpc.request("anvil_setBlockTimestampInterval", [BLOCK_INTERVAL]);
  }

  async latestBlock() {
    const b = await this.rpc.request("eth_getBlockByNumber", ["latest", false]);
    return { number: Number(BigInt(b.number)), timestamp: Number(BigInt(b.timestamp)), hash: b.hash };
  }

  // The next block (mined by the next transaction or evm_mine) gets `ts`.
  async setNextTimestamp(ts) {
    const { timestamp } = await this.latestBlock();
    if (ts <= timestamp) throw new Error(`clock: ${ts} is not after the latest block time ${timestamp}`);
    await this.rpc.request("evm_setNextBlockTimestamp", [ts]);
  }

  async mine() {
    await this.rpc.request("evm_mine", []);
    return this.latestBlock();
  }

  addToken(symbol, contract, decimals) {
    this.tokens[symbol] = contract;
    this.decimals[symbol] = Number(decimals);
  }

  addr(symbol) {
    const t = this.tokens[symbol];
    if (!t) throw new Error(`unknown token ${symbol}`);
    return t.address;
  }

  symbolOf(address) {
    const a = getAddress(address);
    const s = Object.keys(this.tokens).find((k) => this.tokens[k].address === a);
    if (!s) throw new Error(`no token at ${address}`);
    return s;
  }

  // Decimal string or number -> raw units of `symbol`.
  units(symbol, amount) {
    return parseUnits(typeof amount === "number" ? amount.toFixed(this.decimals[symbol]) : amount, this.decimals[symbol]);
  }

  token(symbol, from = this.deployer) {
    return contractAt(this.rpc, this.addr(symbol), ERC20_ABI, from);
  }

  // Gives `to` raw `amount` of `symbol`: WETH from wrapped deployer ETH, USDC
  // through the minter (the deployer), the test tokens by their open mint.
  async fund(symbol, to, amount) {
    const target = typeof to === "string" ? to : to.address;
    if (symbol === "WETH") {
      if (this.wethStock < amount) {
        const wrap = amount - this.wethStock;
        await this.tokens.WETH.sendWith({ value: wrap }, "deposit");
        this.wethStock += wrap;
      }
      this.wethStock -= amount;
      if (target !== this.deployer) await this.tokens.WETH.send("transfer", target, amount);
      return;
    }
    await this.tokens[symbol].send("mint", target, amount);
  }

  // A labelled wallet (keccak256(label) key) with ETH for gas; see lib/signer.mjs.
  async wallet(label, ethWei = 10n ** 20n) {
    if (this.signers[label]) return this.signers[label];
    const signer = new LocalSigner(this.rpc, labelledKey(label));
    await this.rpc.request("anvil_setBalance", [signer.address, `0x${ethWei.toString(16)}`]);
    this.signers[label] = signer;
    return signer;
  }

  // Unlimited approval of `spender` for each symbol, sent by `from`.
  async approveAll(from, spender, symbols) {
    for (const s of symbols) await this.token(s, from).send("approve", spender, MaxUint256);
  }
}

// Small deterministic PRNG (mulberry32) so "random" trade sizes repeat
// exactly on every rebuild.
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

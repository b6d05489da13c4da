// The devnet's starting prices and shared constants. Pools are seeded at
// these prices and the feeds start from them, so every venue agrees at first
// (the swaps, the deviating feed and the thin pair then create differences).
export const PRICES_USD = {
  WETH: 3000,
  WBTC: 90000,
  LINK: 15,
  USDC: 1,
  DAI: 1,
  USDT: 1,
};

// Far in the future: the state is loaded long after it was built, and router
// deadlines computed from the loaded chain's time would otherwise expire.
export const DEADLINE = 4102444800n; // 2100-01-01T00:00:00Z

// token0 is the lower address (Uniswap, Aerodrome).
export function sortPair(chain, a, b) {
  return BigInt(chain.addr(a)) < BigInt(chain.addr(b)) ? [a, b] : [b, a];
}

// Raw amount of `symbol` worth `usd` at the starting prices.
export function usdAmount(chain, symbol, usd) {
  return chain.units(symbol, usd / PRICES_USD[symbol]);
}

// Pools are named token0/token1 (address order), which depends on where the
// test tokens landed; this finds one by its tokens in either order.
// `extra` is the V3 fee or the Aerodrome stable flag.
export function findPool(pools, kind, a, b, extra) {
  const match = Object.values(pools[kind]).filter((p) =>
    ((p.token0 === a && p.token1 === b) || (p.token0 === b && p.token1 === a)) &&
    (extra === undefined || p.fee === extra || p.stable === extra));
  if (match.length !== 1) throw new Error(`no single ${kind} pool for ${a}/${b}${extra === undefined ? "" : `/${extra}`}`);
  return match[0];
}

// Stage: WETH9 at Base's predeploy address and the test tokens. USDC is
// lib/usdc.mjs. Test tokens are Aave's MintableERC20 mock (anyone may mint),
// with the decimals of the real tokens they stand for.
import { getAddress } from "ethers";
import { loadHardhatArtifact, loadWaffleArtifact } from "./artifacts.mjs";
import { placeRuntime, setStorage } from "./canonical.mjs";
import { deployArtifact } from "./deploy.mjs";
import { contractAt } from "./rpc.mjs";

export const BASE_WETH = getAddress("0x4200000000000000000000000000000000000006");

export const ERC20_ABI = [
  "function name() view returns (string)",
  "function symbol() view returns (string)",
  "function decimals() view returns (uint8)",
  "function totalSupply() view returns (uint256)",
  "function balanceOf(address) view returns (uint256)",
  "function allowance(address,address) view returns (uint256)",
  "function approve(address,uint256) returns (bool)",
  "function transfer(address,uint256) returns (bool)",
  "function mint(address,uint256) returns (bool)",
  "function deposit() payable",
  "function withdraw(uint256)",
];

// Symbol -> [name, decimals]. Names say "devnet" so nobody mistakes them for
// the real tokens; symbols and decimals match, which is what the service reads.
export const TEST_TOKENS = {
  WBTC: ["Wrapped BTC (devnet)", 8],
  LINK: ["ChainLink Token (devnet)", 18],
  DAI: ["Dai Stablecoin (devnet)", 18],
  USDT: ["Tether USD (devnet)", 6],
};

export async function placeWeth9(rpc, { deployer }) {
  const art = loadWaffleArtifact("@uniswap/v2-periphery", "build/WETH9.json");
  const { temp } = await placeRuntime(rpc, { from: deployer, creationCode: art.bytecode, target: BASE_WETH, label: "WETH9" });
  // WETH9 keeps name, symbol and decimals in slots 0-2 (set by initialisers,
  // so not part of the runtime code): copy them from the throwaway instance.
  for (let slot = 0; slot < 3; slot++) {
    const word = await rpc.request("eth_getStorageAt", [temp, `0x${slot.toString(16)}`, "latest"]);
    await setStorage(rpc, BASE_WETH, `0x${slot.toString(16)}`, word);
  }
  const weth = contractAt(rpc, BASE_WETH, ERC20_ABI, deployer);
  const [symbol, decimals] = [await weth.read("symbol"), await weth.read("decimals")];
  if (symbol !== "WETH" || decimals !== 18n) throw new Error(`WETH9 at ${BASE_WETH} reads ${symbol}/${decimals}`);
  return weth;
}

export async function deployTestTokens(rpc, { deployer }) {
  const art = loadHardhatArtifact("@aave/core-v3", "artifacts/contracts/mocks/tokens/MintableERC20.sol/MintableERC20.json");
  const out = {};
  for (const [symbol, [name, decimals]] of Object.entries(TEST_TOKENS)) {
    const c = await deployArtifact(rpc, deployer, art, { args: [name, symbol, decimals], label: symbol });
    out[symbol] = contractAt(rpc, c.address, ERC20_ABI, deployer);
  }
  return out;
}

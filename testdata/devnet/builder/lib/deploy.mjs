// Deploys an artifact with constructor arguments (and linked libraries) and
// binds the result, so protocol stages stay short.
import { Interface, getAddress } from "ethers";
import { linkBytecode } from "./artifacts.mjs";
import { contractAt } from "./rpc.mjs";

export async function deployArtifact(rpc, from, art, { args = [], libraries = {}, label = "contract" } = {}) {
  const iface = new Interface(art.abi);
  const code = Object.keys(art.linkReferences ?? {}).length
    ? linkBytecode(art.bytecode, art.linkReferences, libraries)
    : art.bytecode;
  const data = code + iface.encodeDeploy(args).slice(2);
  const address = getAddress(await rpc.deploy(from, data, label));
  return contractAt(rpc, address, iface, from);
}

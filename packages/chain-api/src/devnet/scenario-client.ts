import {
  type Abi,
  createTestClient,
  createWalletClient,
  encodeDeployData,
  encodeFunctionData,
  type Hex,
  type HttpTransport,
  http,
  numberToHex,
  type PublicActions,
  publicActions,
  type TestClient,
  type TransactionReceipt,
} from 'viem';
import type { Address } from '../chains/chain-config.js';
import type { CompiledContracts } from './compile.js';
import { ScenarioError } from './errors.js';

function transport(rpcUrl: string) {
  return http(rpcUrl, { retryCount: 0, timeout: 60_000, batch: { batchSize: 200, wait: 0 } });
}

/** The viem client the scenario uses: anvil test actions plus public actions. */
export type ScenarioViemClient = TestClient<'anvil', HttpTransport, undefined, undefined, true> &
  PublicActions<HttpTransport, undefined>;

function createClient(rpcUrl: string): ScenarioViemClient {
  return createTestClient({
    mode: 'anvil',
    transport: transport(rpcUrl),
    pollingInterval: 50,
  }).extend(publicActions);
}

/**
 * Sends the scenario's transactions through anvil (`eth_sendTransaction` from impersonated
 * wallets, so no local signing) and insists on success: a revert or RPC error becomes a
 * {@link ScenarioError} naming the step.
 */
export interface ScenarioClient {
  client: ScenarioViemClient;
  contracts: CompiledContracts;
  /** Lets `eth_sendTransaction` use these addresses. */
  impersonate(addresses: readonly Address[]): Promise<void>;
  send(
    step: string,
    from: Address,
    to: Address,
    data?: Hex,
    value?: bigint,
  ): Promise<TransactionReceipt>;
  write(
    step: string,
    from: Address,
    to: Address,
    contract: string,
    functionName: string,
    args?: readonly unknown[],
    value?: bigint,
  ): Promise<TransactionReceipt>;
  deploy(
    step: string,
    from: Address,
    contract: string,
    args?: readonly unknown[],
  ): Promise<Address>;
  read<T>(
    to: Address,
    contract: string,
    functionName: string,
    args?: readonly unknown[],
  ): Promise<T>;
  abi(contract: string): Abi;
}

export function createScenarioClient(rpcUrl: string, contracts: CompiledContracts): ScenarioClient {
  const client = createClient(rpcUrl);
  const wallet = createWalletClient({ transport: transport(rpcUrl) });

  const abi = (contract: string): Abi => {
    const c = contracts[contract];
    if (!c) throw new ScenarioError(`unknown contract ${contract}`);
    return c.abi;
  };

  async function sendRaw(
    step: string,
    tx: { from: Address; to?: Address; data?: Hex; value?: bigint },
  ): Promise<TransactionReceipt> {
    const request = {
      from: tx.from,
      ...(tx.to ? { to: tx.to } : {}),
      ...(tx.data ? { data: tx.data } : {}),
      ...(tx.value ? { value: numberToHex(tx.value) } : {}),
    };
    let hash: Hex;
    try {
      // Headroom over the estimate: Uniswap pairs spend more gas when the block timestamp
      // moves between estimation and mining (oracle accumulators), which would revert.
      const estimate = BigInt(
        await wallet.request({ method: 'eth_estimateGas', params: [request] }),
      );
      const gas = numberToHex((estimate * 5n) / 4n + 20_000n);
      hash = await wallet.request({ method: 'eth_sendTransaction', params: [{ ...request, gas }] });
    } catch (err) {
      // viem's message embeds the whole request (kilobytes of bytecode); keep the reason only.
      const e = err as { shortMessage?: string; details?: string; message: string };
      throw new ScenarioError(
        `scenario step "${step}" failed`,
        e.details || e.shortMessage || e.message,
      );
    }
    // Automine: usually mined by the time eth_sendTransaction returns.
    const receipt = await client
      .getTransactionReceipt({ hash })
      .catch(() => client.waitForTransactionReceipt({ hash, pollingInterval: 20 }));
    if (receipt.status !== 'success') {
      throw new ScenarioError(`scenario step "${step}" reverted`, `transaction ${hash}`);
    }
    return receipt;
  }

  return {
    client,
    contracts,
    abi,
    async impersonate(addresses) {
      await Promise.all(addresses.map((address) => client.impersonateAccount({ address })));
    },
    send: (step, from, to, data, value) => sendRaw(step, { from, to, data, value }),
    write: (step, from, to, contract, functionName, args = [], value) =>
      sendRaw(step, {
        from,
        to,
        data: encodeFunctionData({ abi: abi(contract), functionName, args }),
        value,
      }),
    async deploy(step, from, contract, args = []) {
      const c = contracts[contract];
      if (!c) throw new ScenarioError(`unknown contract ${contract}`);
      const data = encodeDeployData({ abi: c.abi, bytecode: c.bytecode, args });
      const receipt = await sendRaw(step, { from, data });
      if (!receipt.contractAddress)
        throw new ScenarioError(`scenario step "${step}" deployed nothing`);
      return receipt.contractAddress.toLowerCase() as Address;
    },
    async read<T>(
      to: Address,
      contract: string,
      functionName: string,
      args: readonly unknown[] = [],
    ) {
      return (await client.readContract({
        address: to,
        abi: abi(contract),
        functionName,
        args,
      })) as T;
    },
  };
}

/**
 * The contracts of the realistic benchmark history: a plain ERC20 with a batch transfer (the
 * heavy transactions), and a hub that moves tokens and native value the way routers do (token
 * `transferFrom` plus an internal ETH transfer, a two-token "swap", an ETH split to several
 * recipients). Compiled once per process with solc-js.
 */
import { type Hex, parseAbi } from 'viem';

const SOURCE = `// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
contract BenchToken {
    string public name;
    string public symbol;
    uint8 public constant decimals = 18;
    uint256 public totalSupply;
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;
    event Transfer(address indexed from, address indexed to, uint256 value);
    event Approval(address indexed owner, address indexed spender, uint256 value);
    constructor(string memory n, string memory s) { name = n; symbol = s; }
    function mint(address to, uint256 amount) public {
        totalSupply += amount; balanceOf[to] += amount; emit Transfer(address(0), to, amount);
    }
    function mintMany(address[] calldata to, uint256 amount) external {
        for (uint256 i = 0; i < to.length; i++) mint(to[i], amount);
    }
    function transfer(address to, uint256 amount) public returns (bool) {
        balanceOf[msg.sender] -= amount; balanceOf[to] += amount; emit Transfer(msg.sender, to, amount); return true;
    }
    function transferFrom(address from, address to, uint256 amount) external returns (bool) {
        uint256 a = allowance[from][msg.sender];
        if (a != type(uint256).max) allowance[from][msg.sender] = a - amount;
        balanceOf[from] -= amount; balanceOf[to] += amount; emit Transfer(from, to, amount); return true;
    }
    function approve(address spender, uint256 amount) external returns (bool) {
        allowance[msg.sender][spender] = amount; emit Approval(msg.sender, spender, amount); return true;
    }
    function batchTransfer(address[] calldata to, uint256 amount) external {
        for (uint256 i = 0; i < to.length; i++) transfer(to[i], amount);
    }
}
interface IToken {
    function transferFrom(address from, address to, uint256 amount) external returns (bool);
    function transfer(address to, uint256 amount) external returns (bool);
}
contract BenchHub {
    event Paid(address indexed payer, address indexed to, uint256 value);
    event Swapped(address indexed who, address tokenIn, address tokenOut, uint256 amount);
    function pay(address token, address to, uint256 amount) external payable {
        IToken(token).transferFrom(msg.sender, to, amount);
        if (msg.value > 0) { (bool ok, ) = to.call{value: msg.value}(""); require(ok, "eth"); }
        emit Paid(msg.sender, to, msg.value);
    }
    function swap(address tokenIn, address tokenOut, uint256 amount) external payable {
        IToken(tokenIn).transferFrom(msg.sender, address(this), amount);
        IToken(tokenOut).transfer(msg.sender, amount);
        if (msg.value > 0) { (bool ok, ) = msg.sender.call{value: msg.value}(""); require(ok, "eth"); }
        emit Swapped(msg.sender, tokenIn, tokenOut, amount);
    }
    function split(address[] calldata to) external payable {
        uint256 each = msg.value / to.length;
        for (uint256 i = 0; i < to.length; i++) { (bool ok, ) = to[i].call{value: each}(""); require(ok, "eth"); }
    }
}`;

export const tokenAbi = parseAbi([
  'constructor(string n, string s)',
  'function mintMany(address[] to, uint256 amount)',
  'function transfer(address to, uint256 amount) returns (bool)',
  'function approve(address spender, uint256 amount) returns (bool)',
  'function batchTransfer(address[] to, uint256 amount)',
]);

export const hubAbi = parseAbi([
  'function pay(address token, address to, uint256 amount) payable',
  'function swap(address tokenIn, address tokenOut, uint256 amount) payable',
  'function split(address[] to) payable',
]);

/** Creation bytecode of BenchToken and BenchHub. */
export async function compileBenchContracts(): Promise<{ token: Hex; hub: Hex }> {
  const solc = (await import('solc')).default;
  const input = {
    language: 'Solidity',
    sources: { 'Bench.sol': { content: SOURCE } },
    settings: {
      optimizer: { enabled: true, runs: 200 },
      outputSelection: { '*': { '*': ['evm.bytecode.object'] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    contracts: Record<string, Record<string, { evm: { bytecode: { object: string } } }>>;
    errors?: { severity: string; formattedMessage: string }[];
  };
  const fatal = out.errors?.filter((e) => e.severity === 'error') ?? [];
  if (fatal.length) throw new Error(fatal.map((e) => e.formattedMessage).join('\n'));
  const of = (name: string) =>
    `0x${out.contracts['Bench.sol']?.[name]?.evm.bytecode.object}` as Hex;
  return { token: of('BenchToken'), hub: of('BenchHub') };
}

// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// ERC20-looking Transfer events, but balanceOf always reverts: deltas are all the indexer has.
contract UnreadableBalance {
    string public name = "Unreadable";
    string public symbol = "UNR";
    uint8 public constant decimals = 18;
    event Transfer(address indexed from, address indexed to, uint256 value);

    function balanceOf(address) external pure returns (uint256) { revert("no balances here"); }
    function emitTransfer(address from, address to, uint256 value) external {
        emit Transfer(from, to, value);
    }
}

/// A vault-like contract reusing WETH9's Deposit/Withdrawal signatures: not a token (no decimals).
contract DepositEmitter {
    event Deposit(address indexed dst, uint256 wad);
    event Withdrawal(address indexed src, uint256 wad);

    function stake(uint256 wad) external { emit Deposit(msg.sender, wad); }
    function unstake(uint256 wad) external { emit Withdrawal(msg.sender, wad); }
}

// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// Credits (and debits) holders without any event, besides ordinary evented transfers.
contract SilentCredit {
    string public name = "Silent";
    string public symbol = "SIL";
    uint8 public constant decimals = 18;
    mapping(address => uint256) public balanceOf;
    event Transfer(address indexed from, address indexed to, uint256 value);

    function mint(address to, uint256 amount) external {
        balanceOf[to] += amount;
        emit Transfer(address(0), to, amount);
    }
    function transfer(address to, uint256 amount) external returns (bool) {
        require(balanceOf[msg.sender] >= amount, "balance");
        balanceOf[msg.sender] -= amount;
        balanceOf[to] += amount;
        emit Transfer(msg.sender, to, amount);
        return true;
    }
    function credit(address[] calldata to, uint256 amount) external {
        for (uint256 i = 0; i < to.length; i++) balanceOf[to[i]] += amount;
    }
    function debit(address from, uint256 amount) external {
        balanceOf[from] = balanceOf[from] > amount ? balanceOf[from] - amount : 0;
    }
}

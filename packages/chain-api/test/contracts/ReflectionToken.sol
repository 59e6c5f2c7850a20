// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// SafeMoon-style reflection: each transfer's 5% fee is removed from the reflected supply, which
/// raises every holder's balance; only the net Transfer(from, to, amount - fee) is emitted.
contract ReflectionToken {
    string public name = "Reflect";
    string public symbol = "RFL";
    uint8 public constant decimals = 9;
    uint256 private constant MAX = type(uint256).max;
    uint256 public totalSupply = 1e9 * 1e9;
    uint256 private rTotal = MAX - (MAX % (1e9 * 1e9));
    mapping(address => uint256) private rOwned;
    event Transfer(address indexed from, address indexed to, uint256 value);

    constructor(address holder) {
        rOwned[holder] = rTotal;
        emit Transfer(address(0), holder, totalSupply);
    }
    function rate() private view returns (uint256) { return rTotal / totalSupply; }
    function balanceOf(address a) public view returns (uint256) { return rOwned[a] / rate(); }
    function transfer(address to, uint256 amount) external returns (bool) {
        uint256 r = rate();
        uint256 fee = amount / 20;
        require(rOwned[msg.sender] >= amount * r, "balance");
        rOwned[msg.sender] -= amount * r;
        rOwned[to] += (amount - fee) * r;
        rTotal -= fee * r;
        emit Transfer(msg.sender, to, amount - fee);
        return true;
    }
}

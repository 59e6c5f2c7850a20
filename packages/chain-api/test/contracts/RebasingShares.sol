// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

/// stETH-style token: holders own shares; balanceOf = shares * pooled / totalShares. `rebase`
/// changes the pooled amount, so every balance moves without any Transfer event.
contract RebasingShares {
    string public name = "Staked Test Ether";
    string public symbol = "stTST";
    uint8 public constant decimals = 18;
    uint256 public totalShares;
    uint256 public pooled;
    mapping(address => uint256) public sharesOf;
    event Transfer(address indexed from, address indexed to, uint256 value);
    event TransferShares(address indexed from, address indexed to, uint256 sharesValue);

    function totalSupply() external view returns (uint256) { return pooled; }
    function balanceOf(address a) public view returns (uint256) {
        return totalShares == 0 ? 0 : (sharesOf[a] * pooled) / totalShares;
    }
    function sharesFor(uint256 amount) public view returns (uint256) {
        return totalShares == 0 ? amount : (amount * totalShares) / pooled;
    }
    function mint(address to, uint256 amount) external {
        uint256 s = sharesFor(amount);
        totalShares += s; pooled += amount; sharesOf[to] += s;
        emit Transfer(address(0), to, amount);
        emit TransferShares(address(0), to, s);
    }
    function transfer(address to, uint256 amount) external returns (bool) {
        uint256 s = sharesFor(amount);
        require(sharesOf[msg.sender] >= s, "balance");
        sharesOf[msg.sender] -= s; sharesOf[to] += s;
        emit Transfer(msg.sender, to, amount);
        emit TransferShares(msg.sender, to, s);
        return true;
    }
    /// Oracle report: rewards (or a slashing) change every holder's balance, no event.
    function rebase(uint256 newPooled) external { pooled = newPooled; }
}

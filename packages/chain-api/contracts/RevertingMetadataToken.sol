// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC20} from "@openzeppelin/contracts/token/ERC20/ERC20.sol";

/// @notice A working ERC20 whose metadata getters (name, symbol, decimals) all revert,
/// so indexers must tolerate failed metadata calls.
contract RevertingMetadataToken is ERC20 {
    constructor(address holder, uint256 supply) ERC20("", "") {
        _mint(holder, supply);
    }

    function name() public pure override returns (string memory) {
        revert("no metadata");
    }

    function symbol() public pure override returns (string memory) {
        revert("no metadata");
    }

    function decimals() public pure override returns (uint8) {
        revert("no metadata");
    }
}

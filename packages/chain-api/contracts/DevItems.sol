// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";
import {ERC1155Burnable} from "@openzeppelin/contracts/token/ERC1155/extensions/ERC1155Burnable.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";

/// @notice ERC1155 game items; `uri` holds the standard `{id}` placeholder.
contract DevItems is ERC1155, ERC1155Burnable, Ownable {
    string public name = "Sluice Items";
    string public symbol = "ITEM";

    constructor(string memory uri_, address owner_) ERC1155(uri_) Ownable(owner_) {}

    function mint(address to, uint256 id, uint256 amount) external onlyOwner {
        _mint(to, id, amount, "");
    }

    function mintBatch(address to, uint256[] calldata ids, uint256[] calldata amounts)
        external
        onlyOwner
    {
        _mintBatch(to, ids, amounts, "");
    }
}

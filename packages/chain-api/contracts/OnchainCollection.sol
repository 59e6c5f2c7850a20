// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Base64} from "@openzeppelin/contracts/utils/Base64.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";

/// @notice ERC721 whose metadata lives on-chain as `data:` URIs: odd ids base64-encoded
/// (`data:application/json;base64,...`), even ids plain (`data:application/json;utf8,{...}`).
contract OnchainCollection is ERC721, Ownable {
    using Strings for uint256;

    uint256 public totalMinted;

    constructor(address owner_) ERC721("Onchain Shapes", "SHAPE") Ownable(owner_) {}

    function mint(address to) external onlyOwner returns (uint256 id) {
        id = ++totalMinted;
        _mint(to, id);
    }

    function tokenURI(uint256 tokenId) public view override returns (string memory) {
        _requireOwned(tokenId);
        uint256 sides = 3 + (tokenId % 5);
        string memory svg = string.concat(
            '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><text x="1" y="6">',
            sides.toString(),
            "</text></svg>"
        );
        string memory json = string.concat(
            '{"name":"Shape ',
            tokenId.toString(),
            '","description":"A fully on-chain shape.","image":"data:image/svg+xml;base64,',
            Base64.encode(bytes(svg)),
            '","attributes":[{"trait_type":"Sides","value":',
            sides.toString(),
            '},{"trait_type":"Filled","value":',
            tokenId % 3 == 0 ? "true" : "false",
            "}]}"
        );
        if (tokenId % 2 == 1) {
            return string.concat("data:application/json;base64,", Base64.encode(bytes(json)));
        }
        return string.concat("data:application/json;utf8,", json);
    }
}

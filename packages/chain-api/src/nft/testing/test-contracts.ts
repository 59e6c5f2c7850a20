/** Test-only NFT contracts: an ERC721 with per-token URIs (ERC-4906 events) and an ERC1155 with `{id}`. */
export const testNftSources = {
  'TestNfts.sol': /* solidity */ `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;
import {ERC721URIStorage, ERC721} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721URIStorage.sol";
import {ERC1155} from "@openzeppelin/contracts/token/ERC1155/ERC1155.sol";

contract TestErc721 is ERC721URIStorage {
  constructor(string memory name_, string memory symbol_) ERC721(name_, symbol_) {}
  function mint(address to, uint256 id, string calldata uri_) external {
    _mint(to, id);
    _setTokenURI(id, uri_);
  }
  // _setTokenURI emits ERC-4906 MetadataUpdate(id).
  function setTokenURI(uint256 id, string calldata uri_) external { _setTokenURI(id, uri_); }
  function refreshAll(uint256 from, uint256 to) external { emit BatchMetadataUpdate(from, to); }
}

contract TestErc1155 is ERC1155 {
  constructor(string memory uri_) ERC1155(uri_) {}
  function mint(address to, uint256 id, uint256 amount) external { _mint(to, id, amount, ""); }
}

/// No name(), no symbol(), tokenURI reverts: the worst case.
contract TestBroken {
  function tokenURI(uint256) external pure returns (string memory) { revert("nope"); }
}
`,
};

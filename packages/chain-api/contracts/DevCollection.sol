// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {ERC721} from "@openzeppelin/contracts/token/ERC721/ERC721.sol";
import {ERC721Burnable} from "@openzeppelin/contracts/token/ERC721/extensions/ERC721Burnable.sol";
import {IERC4906} from "@openzeppelin/contracts/interfaces/IERC4906.sol";
import {IERC165} from "@openzeppelin/contracts/utils/introspection/IERC165.sol";
import {Ownable} from "@openzeppelin/contracts/access/Ownable.sol";
import {Strings} from "@openzeppelin/contracts/utils/Strings.sol";

/// @notice ERC721 collection with token URIs `<baseURI><id>`, per-token URI overrides, owner
/// mints and airdrops, and ERC-4906 MetadataUpdate / BatchMetadataUpdate events on changes.
contract DevCollection is IERC4906, ERC721Burnable, Ownable {
    using Strings for uint256;

    uint256 public totalMinted;
    string private _base;
    mapping(uint256 => string) private _tokenURIs;

    constructor(string memory name_, string memory symbol_, string memory baseURI_, address owner_)
        ERC721(name_, symbol_)
        Ownable(owner_)
    {
        _base = baseURI_;
    }

    function mint(address to) external onlyOwner returns (uint256 id) {
        id = ++totalMinted;
        _mint(to, id);
    }

    function mintBatch(address to, uint256 count) external onlyOwner {
        for (uint256 i = 0; i < count; i++) {
            _mint(to, ++totalMinted);
        }
    }

    /// One token to each recipient (how spam collections reach wallets).
    function airdrop(address[] calldata recipients) external onlyOwner {
        for (uint256 i = 0; i < recipients.length; i++) {
            _mint(recipients[i], ++totalMinted);
        }
    }

    function setTokenURI(uint256 tokenId, string calldata uri) external onlyOwner {
        _requireOwned(tokenId);
        _tokenURIs[tokenId] = uri;
        emit MetadataUpdate(tokenId);
    }

    function setBaseURI(string calldata baseURI_) external onlyOwner {
        _base = baseURI_;
        if (totalMinted > 0) emit BatchMetadataUpdate(1, totalMinted);
    }

    function tokenURI(uint256 tokenId) public view override returns (string memory) {
        _requireOwned(tokenId);
        string memory custom = _tokenURIs[tokenId];
        if (bytes(custom).length > 0) return custom;
        return string.concat(_base, tokenId.toString());
    }

    function supportsInterface(bytes4 interfaceId)
        public
        view
        override(ERC721, IERC165)
        returns (bool)
    {
        return interfaceId == bytes4(0x49064906) || super.supportsInterface(interfaceId);
    }
}

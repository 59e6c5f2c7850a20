// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";
import {IERC721} from "@openzeppelin/contracts/token/ERC721/IERC721.sol";
import {IERC1155} from "@openzeppelin/contracts/token/ERC1155/IERC1155.sol";

/// @notice Minimal NFT marketplace: the NFT moves from the seller (who approved this contract)
/// to the buyer and the payment goes to the seller in the same transaction, in ether (an
/// internal transfer from this contract) or in an ERC20 (WETH, a stablecoin). No fees.
contract Marketplace {
    event Sale(
        address indexed collection,
        uint256 indexed tokenId,
        address seller,
        address buyer,
        address paymentToken,
        uint256 price
    );

    function buyWithEth(IERC721 collection, uint256 tokenId, address payable seller) external payable {
        collection.transferFrom(seller, msg.sender, tokenId);
        _pay(seller, msg.value);
        emit Sale(address(collection), tokenId, seller, msg.sender, address(0), msg.value);
    }

    /// Several tokens of one seller for one ether payment (price split evenly).
    function buyBatchWithEth(IERC721 collection, uint256[] calldata tokenIds, address payable seller)
        external
        payable
    {
        for (uint256 i = 0; i < tokenIds.length; i++) {
            collection.transferFrom(seller, msg.sender, tokenIds[i]);
            emit Sale(
                address(collection), tokenIds[i], seller, msg.sender, address(0), msg.value / tokenIds.length
            );
        }
        _pay(seller, msg.value);
    }

    function buyWithToken(
        IERC721 collection,
        uint256 tokenId,
        address seller,
        IERC20 token,
        uint256 price
    ) external {
        require(token.transferFrom(msg.sender, seller, price), "payment failed");
        collection.transferFrom(seller, msg.sender, tokenId);
        emit Sale(address(collection), tokenId, seller, msg.sender, address(token), price);
    }

    function buy1155WithToken(
        IERC1155 collection,
        uint256 id,
        uint256 amount,
        address seller,
        IERC20 token,
        uint256 price
    ) external {
        require(token.transferFrom(msg.sender, seller, price), "payment failed");
        collection.safeTransferFrom(seller, msg.sender, id, amount, "");
        emit Sale(address(collection), id, seller, msg.sender, address(token), price);
    }

    function _pay(address payable to, uint256 amount) private {
        (bool ok,) = to.call{value: amount}("");
        require(ok, "payout failed");
    }
}

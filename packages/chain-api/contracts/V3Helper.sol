// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {IERC20} from "@openzeppelin/contracts/token/ERC20/IERC20.sol";

interface IUniswapV3FactoryLike {
    function getPool(address tokenA, address tokenB, uint24 fee) external view returns (address);
}

interface IUniswapV3PoolLike {
    function token0() external view returns (address);
    function token1() external view returns (address);
    function fee() external view returns (uint24);
    function mint(address recipient, int24 tickLower, int24 tickUpper, uint128 amount, bytes calldata data)
        external
        returns (uint256 amount0, uint256 amount1);
    function swap(
        address recipient,
        bool zeroForOne,
        int256 amountSpecified,
        uint160 sqrtPriceLimitX96,
        bytes calldata data
    ) external returns (int256 amount0, int256 amount1);
}

/// @notice Tiny stand-in for the v3 periphery: mints positions and swaps on Uniswap v3 pools,
/// paying from the caller (who approved this contract) in the pool callbacks.
contract V3Helper {
    uint160 internal constant MIN_SQRT_RATIO = 4295128739;
    uint160 internal constant MAX_SQRT_RATIO = 1461446703485210103287273052203988822378723970342;

    address public immutable factory;

    constructor(address factory_) {
        factory = factory_;
    }

    function mint(address pool, int24 tickLower, int24 tickUpper, uint128 liquidity)
        external
        returns (uint256 amount0, uint256 amount1)
    {
        return IUniswapV3PoolLike(pool).mint(msg.sender, tickLower, tickUpper, liquidity, abi.encode(msg.sender));
    }

    function swapExactIn(address pool, bool zeroForOne, uint256 amountIn, address recipient)
        external
        returns (int256 amount0, int256 amount1)
    {
        uint160 limit = zeroForOne ? MIN_SQRT_RATIO + 1 : MAX_SQRT_RATIO - 1;
        return IUniswapV3PoolLike(pool).swap(recipient, zeroForOne, int256(amountIn), limit, abi.encode(msg.sender));
    }

    function uniswapV3MintCallback(uint256 amount0, uint256 amount1, bytes calldata data) external {
        _pay(amount0, amount1, data);
    }

    function uniswapV3SwapCallback(int256 amount0Delta, int256 amount1Delta, bytes calldata data) external {
        _pay(amount0Delta > 0 ? uint256(amount0Delta) : 0, amount1Delta > 0 ? uint256(amount1Delta) : 0, data);
    }

    function _pay(uint256 amount0, uint256 amount1, bytes calldata data) private {
        IUniswapV3PoolLike pool = IUniswapV3PoolLike(msg.sender);
        address token0 = pool.token0();
        address token1 = pool.token1();
        // Only genuine pools of our factory may pull the payer's tokens.
        require(IUniswapV3FactoryLike(factory).getPool(token0, token1, pool.fee()) == msg.sender, "not a pool");
        address payer = abi.decode(data, (address));
        if (amount0 > 0) require(IERC20(token0).transferFrom(payer, msg.sender, amount0), "pay0");
        if (amount1 > 0) require(IERC20(token1).transferFrom(payer, msg.sender, amount1), "pay1");
    }
}

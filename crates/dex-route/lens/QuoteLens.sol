// SPDX-License-Identifier: MIT
pragma solidity 0.8.24;

/// @title QuoteLens
/// @notice Runs the calls of several round trips of a read inside one `eth_call`: for
/// `/dex/quote` discovery (token metadata, factory lookups, StateView slot0s), then the quotes
/// and pool states, then the second legs; for `/pool/liquidity` the pool's identity or its
/// pair's lookups, then its state, or its tick words and exits, then the ticks the words mark.
/// Each phase's pool addresses and amounts are taken from the answers of the phases before it.
/// Never deployed: the server places this runtime code at an unused address with an
/// `eth_call` state override, for that call only.
/// @dev Each phase runs in a call to itself that always reverts, carrying its answers out in
/// the revert data. A revert undoes the phase's EIP-2929 warm accounts and slots, so every
/// phase starts as cold as a separate `eth_call` would, and a quoter's gas measurement is the
/// one the ordinary path reads.
contract QuoteLens {
    /// One call, as the ordinary path would put it in a Multicall3 batch.
    struct Call {
        address target;
        bytes data;
        /// `(offset << 32) | value`: the value is written as a 32-byte word at byte `offset`
        /// of `data`; offset `0xffffffff` replaces `target` instead.
        uint64[] patches;
        /// Values that must be known (and non-zero) for the call to be made at all.
        uint32[] conditions;
        /// Empty, or `[call, wordPos, spacing, offset]`: the call is made once per set bit of
        /// the first word of answer `call` (a tick bitmap word at `wordPos`), lowest bit first,
        /// with `(wordPos * 256 + bit) * spacing` (a tick) written at byte `offset` of `data`;
        /// its answer's data is then `abi.encode(Each[])`.
        int256[] expand;
    }

    /// One call of an expanded call.
    struct Each {
        bool success;
        bytes data;
    }

    /// A number computed from earlier answers.
    struct Value {
        /// WORD, SCALED, V2_OUT, OUT, MAX or HASH_HI.
        uint8 kind;
        /// The answer it reads.
        uint32 call;
        /// WORD/OUT: the word read; SCALED: the decimals the constant is in; V2_OUT: fee, bps.
        uint32 word;
        /// SCALED: the amount in `word` decimals; V2_OUT: 1 when selling token0.
        uint256 constant_;
        /// V2_OUT: the amount sold; MAX: the values compared; HASH_HI: the value hashed.
        uint32[] refs;
    }

    /// One call's outcome, with the target and data it was sent with (patched); `ran` is
    /// false when a condition or a patch value was not known.
    struct Answer {
        bool ran;
        bool success;
        address target;
        bytes input;
        bytes data;
    }

    /// Known and non-zero: word `word` of answer `call`.
    uint8 internal constant WORD = 0;
    /// `constant_ × 10^(d − word)`, d the uint8 answered by `call` (an ERC-20 `decimals()`).
    uint8 internal constant SCALED = 1;
    /// Uniswap V2's `getAmountOut` of `refs[0]` on the reserves answered by `call`.
    uint8 internal constant V2_OUT = 2;
    /// Word `word` of answer `call`, known when the call succeeded (zero is not a leg).
    uint8 internal constant OUT = 3;
    /// The largest of `refs` that are known and non-zero.
    uint8 internal constant MAX = 4;
    /// `keccak256(refs[0]) >> 128`: the stand-in minimum output of the representative swap
    /// transaction the L1 data fee is asked for.
    uint8 internal constant HASH_HI = 5;

    /// Carries a phase's answers out of the reverting self-call.
    error PhaseAnswers(Answer[] answers);
    /// A phase failed otherwise (out of gas, or an encoding fault).
    error PhaseFailed(uint256 phase, bytes reason);

    /// Runs `calls` in phases ending at `phaseEnds` (exclusive indices, ascending).
    function run(Call[] calldata calls, uint32[] calldata phaseEnds, Value[] calldata values)
        external
        returns (uint256 blockNumber, Answer[] memory answers)
    {
        answers = new Answer[](calls.length);
        uint256 start = 0;
        for (uint256 p = 0; p < phaseEnds.length; p++) {
            try this.phase(calls, start, phaseEnds[p], values, answers) {
                revert PhaseFailed(p, "");
            } catch (bytes memory reason) {
                if (reason.length < 4 || bytes4(reason) != PhaseAnswers.selector) {
                    revert PhaseFailed(p, reason);
                }
                assembly {
                    // Drop the selector: the rest is the ABI encoding of the answers.
                    let length := mload(reason)
                    reason := add(reason, 4)
                    mstore(reason, sub(length, 4))
                }
                answers = abi.decode(reason, (Answer[]));
            }
            start = phaseEnds[p];
        }
        blockNumber = block.number;
    }

    /// One phase: the calls `start..end` given the answers so far; always reverts.
    function phase(
        Call[] calldata calls,
        uint256 start,
        uint256 end,
        Value[] calldata values,
        Answer[] memory answers
    ) external {
        for (uint256 i = start; i < end; i++) {
            Call calldata c = calls[i];
            bool known = true;
            for (uint256 k = 0; k < c.conditions.length && known; k++) {
                (known,) = value(c.conditions[k], values, answers);
            }
            if (!known) continue;
            bytes memory data = c.data;
            address target = c.target;
            for (uint256 k = 0; k < c.patches.length && known; k++) {
                uint64 patch = c.patches[k];
                uint256 v;
                (known, v) = value(uint32(patch), values, answers);
                uint256 offset = uint32(patch >> 32);
                if (offset == 0xffffffff) {
                    target = address(uint160(v));
                } else if (offset + 32 <= data.length) {
                    assembly {
                        mstore(add(add(data, 32), offset), v)
                    }
                } else {
                    known = false;
                }
            }
            if (!known) continue;
            if (c.expand.length == 4) {
                answers[i] = expanded(c, target, data, answers);
                continue;
            }
            (bool success, bytes memory answer) = target.call(data);
            answers[i] = Answer(true, success, target, data, answer);
        }
        revert PhaseAnswers(answers);
    }

    /// An expanded call: once per set bit of its bitmap word (not made when the word was not
    /// read).
    function expanded(Call calldata c, address target, bytes memory data, Answer[] memory answers)
        internal
        returns (Answer memory)
    {
        (bool read, uint256 bitmap) = word(answers[uint256(c.expand[0])], 0);
        uint256 offset = uint256(c.expand[3]);
        if (!read || offset + 32 > data.length) return Answer(false, false, target, data, "");
        uint256 count = 0;
        for (uint256 b = 0; b < 256; b++) {
            if ((bitmap >> b) & 1 == 1) count++;
        }
        Each[] memory each = new Each[](count);
        bytes memory input = bytes.concat(data);
        uint256 n = 0;
        for (uint256 b = 0; b < 256; b++) {
            if ((bitmap >> b) & 1 == 0) continue;
            int256 tick = (c.expand[1] * 256 + int256(b)) * c.expand[2];
            assembly {
                mstore(add(add(input, 32), offset), tick)
            }
            (bool success, bytes memory answer) = target.call(input);
            each[n++] = Each(success, answer);
        }
        return Answer(true, true, target, data, abi.encode(each));
    }

    function word(Answer memory a, uint256 index) internal pure returns (bool, uint256 w) {
        if (!a.ran || !a.success || a.data.length < 32 * (index + 1)) return (false, 0);
        bytes memory data = a.data;
        assembly {
            w := mload(add(add(data, 32), mul(index, 32)))
        }
        return (true, w);
    }

    function value(uint32 index, Value[] calldata values, Answer[] memory answers)
        internal
        pure
        returns (bool, uint256)
    {
        Value calldata v = values[index];
        if (v.kind == MAX) {
            bool any = false;
            uint256 best = 0;
            for (uint256 k = 0; k < v.refs.length; k++) {
                (bool ok, uint256 x) = value(v.refs[k], values, answers);
                if (ok && x > best) {
                    best = x;
                    any = true;
                }
            }
            return (any, best);
        }
        if (v.kind == HASH_HI) {
            (bool ok, uint256 x) = value(v.refs[0], values, answers);
            return (ok, uint256(keccak256(abi.encode(x))) >> 128);
        }
        (bool read, uint256 w) = word(answers[v.call], v.kind == WORD || v.kind == OUT ? v.word : 0);
        if (!read) return (false, 0);
        if (v.kind == WORD || v.kind == OUT) return (w != 0, w);
        if (v.kind == SCALED) {
            if (w > 255 || w < v.word || w - v.word > 77) return (false, 0);
            uint256 scale = 10 ** (w - v.word);
            unchecked {
                uint256 amount = v.constant_ * scale;
                if (amount / scale != v.constant_ || amount == 0) return (false, 0);
                return (true, amount);
            }
        }
        if (v.kind == V2_OUT) {
            (bool ok, uint256 amountIn) = value(v.refs[0], values, answers);
            (, uint256 reserve1) = word(answers[v.call], 1);
            if (!ok || v.word >= 10000) return (false, 0);
            (uint256 reserveIn, uint256 reserveOut) = v.constant_ == 1 ? (w, reserve1) : (reserve1, w);
            if (reserveIn == 0 || reserveOut == 0) return (false, 0);
            unchecked {
                uint256 kept = 10000 - v.word;
                uint256 withFee = amountIn * kept;
                if (withFee / kept != amountIn) return (false, 0);
                uint256 numerator = withFee * reserveOut;
                if (numerator / reserveOut != withFee) return (false, 0);
                uint256 base = reserveIn * 10000;
                if (base / 10000 != reserveIn) return (false, 0);
                uint256 denominator = base + withFee;
                if (denominator < base) return (false, 0);
                uint256 out = numerator / denominator;
                return (out != 0, out);
            }
        }
        return (false, 0);
    }
}

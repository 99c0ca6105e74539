#!/usr/bin/env python3
"""Makes the harness's models, deterministically: a SentencePiece tokenizer trained on a local
corpus, a LLaMA-architecture target whose logits are a low-rank bigram model of that corpus, and
three drafts sharing its vocabulary (weak, good, broken). Run inside the engine's chroot, where
Debian's python3-gguf, python3-numpy and python3-sentencepiece are.

    mkmodels.py CORPUS OUTDIR

The transformer layers are real (attention and feed-forward are computed at every step, so a
step's cost grows with the context as a real model's does), but their outputs are zeroed, so the
prediction is the bigram read off the current token: acceptance then depends on how well a
draft's bigram agrees with the target's, which is what the drafts vary.
"""
import os
import sys

import numpy as np
import sentencepiece as spm
import gguf

VOCAB = 2048


def train_tokenizer(corpus, out):
    prefix = os.path.join(out, "tok")
    spm.SentencePieceTrainer.train(
        input=corpus, model_prefix=prefix, vocab_size=VOCAB, model_type="bpe",
        byte_fallback=True, character_coverage=1.0, num_threads=1,
        input_sentence_size=0, shuffle_input_sentence=False, max_sentence_length=1 << 16,
        split_digits=True, minloglevel=2)
    return spm.SentencePieceProcessor(model_file=prefix + ".model")


def vocab_of(sp):
    tokens, scores, types = [], [], []
    for i in range(sp.get_piece_size()):
        tokens.append(sp.id_to_piece(i).encode("utf-8"))
        scores.append(sp.get_score(i))
        if sp.is_unknown(i):
            types.append(gguf.TokenType.UNKNOWN)
        elif sp.is_control(i):
            types.append(gguf.TokenType.CONTROL)
        elif sp.is_byte(i):
            types.append(gguf.TokenType.BYTE)
        else:
            types.append(gguf.TokenType.NORMAL)
    return tokens, scores, types


def bigram_logprobs(ids, smooth):
    counts = np.full((VOCAB, VOCAB), smooth, dtype=np.float64)
    np.add.at(counts, (ids[:-1], ids[1:]), 1.0)
    return np.log(counts / counts.sum(axis=1, keepdims=True))


def factor(logp, rank, sharpen):
    """Returns E (V x rank+1) and O (V x rank+1) with O @ E[x] ~ sharpen * logp[x]; every row
    of E has the same norm (an extra column pads it), so the output RMS norm scales all tokens
    alike."""
    centred = logp - logp.mean(axis=1, keepdims=True)
    u, s, vt = np.linalg.svd(centred, full_matrices=False)
    e = u[:, :rank] * np.sqrt(s[:rank])
    o = vt[:rank].T * np.sqrt(s[:rank]) * sharpen
    norms = np.linalg.norm(e, axis=1)
    top = norms.max() * 1.01
    pad = np.sqrt(top * top - norms * norms)
    e = np.concatenate([e, pad[:, None]], axis=1)
    o = np.concatenate([o, np.zeros((VOCAB, 1))], axis=1)
    # RMS norm divides by rms(e) = top / sqrt(d): undo it in O
    d = rank + 1
    o *= top / np.sqrt(d)
    return e, o


def write(path, name, sp, e, o, n_embd, n_layer, n_head, n_ff, seed):
    rng = np.random.default_rng(seed)
    w = gguf.GGUFWriter(path, "llama")
    w.add_name(name)
    w.add_context_length(16384)
    w.add_embedding_length(n_embd)
    w.add_block_count(n_layer)
    w.add_feed_forward_length(n_ff)
    w.add_head_count(n_head)
    w.add_head_count_kv(n_head)
    w.add_rope_dimension_count(n_embd // n_head)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.ALL_F32)
    w.add_vocab_size(VOCAB)
    tokens, scores, types = vocab_of(sp)
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(sp.bos_id())
    w.add_eos_token_id(sp.eos_id())
    w.add_unk_token_id(sp.unk_id())
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)
    w.add_chat_template("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                        "{% if add_generation_prompt %}assistant: {% endif %}")

    def f32(a):
        return np.ascontiguousarray(a, dtype=np.float32)

    emb = np.zeros((VOCAB, n_embd))
    emb[:, :e.shape[1]] = e
    out = np.zeros((VOCAB, n_embd))
    out[:, :o.shape[1]] = o
    # the residual keeps only e's columns: the norm's weights are 1 there
    w.add_tensor("token_embd.weight", f32(emb))
    w.add_tensor("output_norm.weight", f32(np.ones(n_embd)))
    w.add_tensor("output.weight", f32(out))
    for i in range(n_layer):
        def rnd(r, c):
            return f32(rng.standard_normal((r, c)) / np.sqrt(c))
        w.add_tensor(f"blk.{i}.attn_norm.weight", f32(np.ones(n_embd)))
        w.add_tensor(f"blk.{i}.attn_q.weight", rnd(n_embd, n_embd))
        w.add_tensor(f"blk.{i}.attn_k.weight", rnd(n_embd, n_embd))
        w.add_tensor(f"blk.{i}.attn_v.weight", rnd(n_embd, n_embd))
        w.add_tensor(f"blk.{i}.attn_output.weight", f32(np.zeros((n_embd, n_embd))))
        w.add_tensor(f"blk.{i}.ffn_norm.weight", f32(np.ones(n_embd)))
        w.add_tensor(f"blk.{i}.ffn_gate.weight", rnd(n_ff, n_embd))
        w.add_tensor(f"blk.{i}.ffn_up.weight", rnd(n_ff, n_embd))
        w.add_tensor(f"blk.{i}.ffn_down.weight", f32(np.zeros((n_embd, n_ff))))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()


def main():
    corpus, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    sp = train_tokenizer(corpus, out)
    with open(corpus, encoding="utf-8") as f:
        text = f.read()
    ids = np.array(sp.encode(text), dtype=np.int64)
    half = len(ids) // 2
    full = bigram_logprobs(ids, 0.01)
    # the target: the whole corpus's bigram at rank 120
    te, to = factor(full, 120, 1.0)
    write(os.path.join(out, "target.gguf"), "specwatch-target", sp, te, to, 512, 6, 8, 1536, 1)
    rng = np.random.default_rng(5)
    # a good draft: the target's own factors with a little noise on the output, sharpened so it
    # drafts with confidence
    go = 2.0 * (to + rng.standard_normal(to.shape) * 0.25 * to.std())
    write(os.path.join(out, "draft-good.gguf"), "specwatch-draft-good", sp, te, go, 128, 1, 4, 256, 2)
    # a weak draft: the bigram of the corpus's first half only, at a lower rank
    we, wo = factor(bigram_logprobs(ids[:half], 0.5), 32, 2.0)
    write(os.path.join(out, "draft-weak.gguf"), "specwatch-draft-weak", sp, we, wo, 128, 1, 4, 256, 3)
    # a broken draft: the good one's output rows permuted, so its tokens are never the target's
    perm = np.random.default_rng(4).permutation(VOCAB)
    write(os.path.join(out, "draft-broken.gguf"), "specwatch-draft-broken", sp, te, go[perm], 128, 1, 4, 256, 4)
    freq = np.bincount(ids, minlength=VOCAB) / len(ids)
    tgt = (to @ te.T).argmax(axis=0)
    for name, e, o in (("good", te, go), ("weak", we, wo), ("broken", te, go[perm])):
        agree = ((o @ e.T).argmax(axis=0) == tgt)
        print(f"{name}: argmax agrees with the target's on {freq @ agree:.2f} of the corpus's tokens")

if __name__ == "__main__":
    main()

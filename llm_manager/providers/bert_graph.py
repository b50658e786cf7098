"""An ONNX graph of a BERT sentence encoder, built from its weights (no PyTorch, no export step).

The graph is what sentence-transformers computes for the MiniLM/BERT family:
embeddings (word + position + token type 0) and LayerNorm, then per layer
multi-head self-attention and a GELU feed-forward block, each followed by a
residual LayerNorm; then mean pooling over the unmasked tokens. ONNX Runtime
fuses these standard operators into its own attention, GELU and LayerNorm
kernels (graph optimisation level "all"), which is where the speed comes from.

Inputs: input_ids and attention_mask, int64 [batch, length]. Outputs:
sentence_embedding, float32 [batch, hidden], not yet L2-normalised; and
token_embeddings, float32 [batch, length, hidden], the last layer's state of
each token (what the sentence embedding is the mean of), for matching a
question's words against a sentence's one by one (llm_manager.services.word_alignment).
"""

import math

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17  # LayerNormalization is a standard operator from 17 on


class GraphBuilder:
    """Collects nodes and initializers under unique names; each method returns its output's name."""

    def __init__(self):
        self.nodes, self.initializers, self.count = [], [], 0

    def name(self, hint: str) -> str:
        self.count += 1
        return f"{hint}_{self.count}"

    def constant(self, array: np.ndarray, hint: str = "const") -> str:
        name = self.name(hint)
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def op(self, op_type: str, inputs: list[str], hint: str | None = None, **attributes) -> str:
        output = self.name(hint or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [output], name=output, **attributes))
        return output


def build_bert_graph(weights: dict[str, np.ndarray], layers: int, heads: int, eps: float) -> onnx.ModelProto:
    g = GraphBuilder()
    hidden = weights["embeddings.word_embeddings.weight"].shape[1]
    size = hidden // heads

    def linear(x, prefix):
        weight = g.constant(weights[f"{prefix}.weight"].T.astype(np.float32), f"{prefix}.weight")
        return g.op("Add", [g.op("MatMul", [x, weight]), g.constant(weights[f"{prefix}.bias"].astype(np.float32))])

    def layer_norm(x, prefix):
        gamma = g.constant(weights[f"{prefix}.weight"].astype(np.float32))
        beta = g.constant(weights[f"{prefix}.bias"].astype(np.float32))
        return g.op("LayerNormalization", [x, gamma, beta], axis=-1, epsilon=eps)

    split_heads = g.constant(np.array([0, 0, heads, size], dtype=np.int64))
    merge_heads = g.constant(np.array([0, 0, hidden], dtype=np.int64))

    def attention(x, bias, prefix):
        def project(name, perm):
            reshaped = g.op("Reshape", [linear(x, f"{prefix}.attention.self.{name}"), split_heads])
            return g.op("Transpose", [reshaped], perm=perm)

        query = project("query", [0, 2, 1, 3])  # [batch, heads, length, size]
        key = project("key", [0, 2, 3, 1])  # [batch, heads, size, length]
        value = project("value", [0, 2, 1, 3])
        scores = g.op("Mul", [g.op("MatMul", [query, key]), g.constant(np.array(1 / math.sqrt(size), np.float32))])
        weights_ = g.op("Softmax", [g.op("Add", [scores, bias])], axis=-1)
        context = g.op("Transpose", [g.op("MatMul", [weights_, value])], perm=[0, 2, 1, 3])
        return linear(g.op("Reshape", [context, merge_heads]), f"{prefix}.attention.output.dense")

    def gelu(x):  # the exact (erf) GELU of BERT
        inner = g.op("Erf", [g.op("Div", [x, g.constant(np.array(math.sqrt(2.0), np.float32))])])
        half_x = g.op("Mul", [x, g.constant(np.array(0.5, np.float32))])
        return g.op("Mul", [half_x, g.op("Add", [inner, g.constant(np.array(1.0, np.float32))])])

    # Embeddings: word + position (0..length-1) + token type 0.
    length = g.op("Shape", ["input_ids"], start=1, end=2)  # [length], 1-D as Slice wants it
    zero = g.constant(np.array([0], np.int64))
    x = g.op(
        "Add",
        [
            g.op("Gather", [g.constant(weights["embeddings.word_embeddings.weight"].astype(np.float32)), "input_ids"]),
            g.op(
                "Slice",
                [g.constant(weights["embeddings.position_embeddings.weight"].astype(np.float32)), zero, length, zero],
            ),
        ],
    )
    x = g.op("Add", [x, g.constant(weights["embeddings.token_type_embeddings.weight"][0].astype(np.float32))])
    x = layer_norm(x, "embeddings.LayerNorm")

    # Padding takes no attention: a large negative score before the softmax.
    mask = g.op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
    bias = g.op(
        "Mul", [g.op("Sub", [g.constant(np.array(1.0, np.float32)), mask]), g.constant(np.array(-1e4, np.float32))]
    )
    bias = g.op("Unsqueeze", [bias, g.constant(np.array([1, 2], np.int64))])  # [batch, 1, 1, length]

    for layer in range(layers):
        prefix = f"encoder.layer.{layer}"
        x = layer_norm(g.op("Add", [x, attention(x, bias, prefix)]), f"{prefix}.attention.output.LayerNorm")
        inner = gelu(linear(x, f"{prefix}.intermediate.dense"))
        x = layer_norm(g.op("Add", [x, linear(inner, f"{prefix}.output.dense")]), f"{prefix}.output.LayerNorm")

    g.nodes.append(helper.make_node("Identity", [x], ["token_embeddings"], name="token_states"))
    # Mean pooling over the tokens the mask keeps.
    token_mask = g.op("Unsqueeze", [mask, g.constant(np.array([2], np.int64))])
    axis = g.constant(np.array([1], np.int64))
    summed = g.op("ReduceSum", [g.op("Mul", [x, token_mask]), axis], keepdims=0)
    counts = g.op("ReduceSum", [token_mask, axis], keepdims=0)
    g.nodes.append(helper.make_node("Div", [summed, counts], ["sentence_embedding"], name="mean_pooling"))

    graph = helper.make_graph(
        g.nodes,
        "bert_sentence_encoder",
        inputs=[
            helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "length"])
            for name in ("input_ids", "attention_mask")
        ],
        outputs=[
            helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", hidden]),
            helper.make_tensor_value_info("token_embeddings", TensorProto.FLOAT, ["batch", "length", hidden]),
        ],
        initializer=g.initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=8)

//! What a turn's requests cost: each model call counted with the server's token usage, or
//! estimated from bytes where it reports none (and for a call cut short), and the byte sizes
//! those estimates start from.

use crate::llm::ChatMessage;
use crate::llm::types::{Reply, Usage};
use crate::sessions::context::{estimate_tokens, message_bytes};
use crate::sessions::{CallUsage, Record};

use super::turn::Agent;

impl Agent {
    /// Count one model call (`sent`: bytes of its request) and add its token usage to the run's
    /// and the turn's, stored in the session: the server's count, or estimated from bytes when
    /// it sent none.
    pub(super) fn count_call(&mut self, reply: Option<&Reply>, sent: u64) {
        self.in_flight = None;
        self.llm_calls += 1;
        let Some(reply) = reply else {
            return;
        };
        let call = match reply.usage {
            Some(u) => {
                self.usage.get_or_insert_with(Usage::default).add(&u);
                CallUsage {
                    prompt_tokens: u.prompt_tokens,
                    completion_tokens: u.completion_tokens,
                    cache_write_tokens: u.cache_write_tokens,
                    cache_read_tokens: u.cache_read_tokens,
                    cost_usd: u.cost_usd,
                    estimated: false,
                }
            }
            None => CallUsage {
                prompt_tokens: estimate_tokens(sent),
                completion_tokens: estimate_tokens(reply_bytes(reply)),
                estimated: true,
                ..CallUsage::default()
            },
        };
        if call.estimated {
            self.tokens_estimated += call.prompt_tokens + call.completion_tokens;
        }
        self.session.count(&call);
        self.conversation.record(&Record::Usage(call));
    }

    /// Count the request a cancelled turn left unanswered: it was sent and (partly) answered, so
    /// it cost tokens; the server's count never came, so they are estimated from bytes.
    pub(super) fn count_abandoned_call(&mut self) {
        let Some(sent) = self.in_flight.take() else {
            return;
        };
        let partial = self.conversation.partial();
        let received = partial.lock().unwrap_or_else(|p| p.into_inner()).len() as u64;
        self.llm_calls += 1;
        let call = CallUsage {
            prompt_tokens: estimate_tokens(sent),
            completion_tokens: estimate_tokens(received),
            estimated: true,
            ..CallUsage::default()
        };
        self.session.count(&call);
        self.conversation.record(&Record::Usage(call));
    }

    /// Requests made to the model so far.
    pub(crate) fn llm_calls(&self) -> u32 {
        self.llm_calls
    }

    /// Tokens of the calls whose server reported no usage, estimated from their bytes.
    pub(crate) fn estimated_tokens(&self) -> u64 {
        self.tokens_estimated
    }

    /// Tokens used so far, when the server reports them.
    pub(crate) fn usage(&self) -> Option<Usage> {
        self.usage
    }
}

/// Bytes of a request with `messages` and `tools`, as its token estimate counts them.
pub(super) fn request_bytes(messages: &[ChatMessage], tools: &serde_json::Value) -> u64 {
    messages.iter().map(message_bytes).sum::<u64>() + tools_bytes(tools)
}

/// Bytes of the tool schemas a request sends (none when there are no tools).
pub(super) fn tools_bytes(tools: &serde_json::Value) -> u64 {
    if tools.is_null() {
        0
    } else {
        tools.to_string().len() as u64
    }
}

/// Bytes of a reply: its text and its tool calls.
fn reply_bytes(reply: &Reply) -> u64 {
    let calls: usize = reply
        .tool_calls
        .iter()
        .map(|c| c.function.name.len() + c.function.arguments.len())
        .sum();
    (reply.content.len() + calls) as u64
}

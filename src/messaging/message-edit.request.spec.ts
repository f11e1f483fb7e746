import { TopicErrors } from '../channels/channel.errors';
import type { AccessedMessage } from './message-access.service';
import { sha256Hex } from './message-edit.policy';
import { parseEditPayload, type UpdateMessageInput } from './message-edit.request';
import { MessageErrors } from './message.errors';

const channelMessage = {
  id: 1,
  isChannelMessage: true,
  streamId: 7,
  subject: 'lunch',
  content: 'hello',
} as AccessedMessage['message'];
const directMessage = { ...channelMessage, isChannelMessage: false, streamId: null } as AccessedMessage['message'];

const input = (over: Partial<UpdateMessageInput>): UpdateMessageInput => ({
  propagateMode: 'change_one',
  sendNotificationToNewThread: true,
  sendNotificationToOldThread: false,
  ...over,
});

const refusal = (error: { message: string }) => error.message;

describe('parseEditPayload (check_update_message steps 4 and 5)', () => {
  it('drops a topic or channel equal to the current one, and then has nothing to change', () => {
    expect(() => parseEditPayload(channelMessage, input({ topic: '  lunch ' }))).toThrow(
      refusal(MessageErrors.nothingToChange()),
    );
    expect(() => parseEditPayload(channelMessage, input({ streamId: 7 }))).toThrow(
      refusal(MessageErrors.nothingToChange()),
    );
    expect(parseEditPayload(channelMessage, input({ topic: 'dinner', streamId: 7 }))).toEqual({
      topicName: 'dinner',
      streamId: undefined,
    });
  });

  it('refuses topics and channels for direct messages, channel first', () => {
    expect(() => parseEditPayload(directMessage, input({ topic: 'x', streamId: 8 }))).toThrow(
      refusal(MessageErrors.directMessageToChannel()),
    );
    expect(() => parseEditPayload(directMessage, input({ topic: 'x' }))).toThrow(
      refusal(MessageErrors.directMessageTopic()),
    );
  });

  it('refuses propagate_mode without a move, resolving general chat, and control characters', () => {
    expect(() => parseEditPayload(channelMessage, input({ content: 'x', propagateMode: 'change_all' }))).toThrow(
      refusal(MessageErrors.propagateModeWithoutTopicEdit()),
    );
    expect(() => parseEditPayload(channelMessage, input({ topic: '✔' }))).toThrow(
      refusal(MessageErrors.generalChatCannotBeResolved()),
    );
    expect(() => parseEditPayload(channelMessage, input({ topic: 'a\u0000b' }))).toThrow(
      refusal(TopicErrors.invalidCharacter(2)),
    );
  });

  it('refuses content with a channel change, and a stale prev_content_sha256', () => {
    expect(() => parseEditPayload(channelMessage, input({ content: 'x', streamId: 8 }))).toThrow(
      refusal(MessageErrors.contentChangeWhileMoving()),
    );
    expect(() =>
      parseEditPayload(channelMessage, input({ content: 'x', prevContentSha256: sha256Hex('old') })),
    ).toThrow(refusal(MessageErrors.prevContentMismatch()));
    expect(parseEditPayload(channelMessage, input({ content: 'x', prevContentSha256: sha256Hex('hello') }))).toEqual({
      topicName: undefined,
      streamId: undefined,
    });
  });
});

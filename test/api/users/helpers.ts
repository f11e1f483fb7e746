export {
  AARON,
  call as api,
  checkShape,
  CORDELIA,
  DEFAULT_BOT,
  DESDEMONA,
  encodeParams as encode,
  expectError,
  expectSuccess,
  groupId,
  HAMLET,
  IAGO,
  OTHELLO,
  POLONIUS,
  PROSPERO,
  SHIVA,
  userId,
  ZOE,
} from '../../helpers/api';
import type { Method } from '../../helpers/api';
export type { Method };

export { registerQueue as queue, takeEvents as events } from '../../helpers/events';

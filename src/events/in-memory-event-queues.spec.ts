import { describeBackendContract } from '../../test/helpers/event-backend-contract';
import { InMemoryEventQueues } from './in-memory-event-queues';

describeBackendContract('in-process queues', (opts) => new InMemoryEventQueues(opts));

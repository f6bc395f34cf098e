import { defineLaunchSuite } from './launch-suite.js';

defineLaunchSuite('sqlite');

// mcast4ai groups view: a read-only table of P2MP groups.
// The table builder sends mcast4aiGroupDataRequest and reads the rows from
// mcast4aiGroups of mcast4aiGroupDataResponse (GroupTableMessageHandler).
(function () {
    'use strict';

    angular.module('ovMcast4aiGroups', [])
        .controller('OvMcast4aiGroupsCtrl',
        ['$log', '$scope', 'TableBuilderService',

            function ($log, $scope, tbs) {
                tbs.buildTable({
                    scope: $scope,
                    tag: 'mcast4aiGroup'
                });

                $scope.$on('$destroy', function () {
                    $log.log('OvMcast4aiGroupsCtrl has been destroyed');
                });

                $log.log('OvMcast4aiGroupsCtrl has been created');
            }]);
}());
